/* placeholder: written by the schedule_json work */

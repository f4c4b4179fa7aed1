/* placeholder: written by the schedule work */

/* placeholder: written by the validate work */

/* placeholder: written by the dot work */

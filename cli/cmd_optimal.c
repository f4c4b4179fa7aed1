/* placeholder: hetsched optimal is being written */
#include "cli.h"
static int stub(int argc, char **argv) { (void)argc; (void)argv; return 1; }
const hs_cli_cmd hs_cmd_optimal = { .name = "optimal", .summary = "(being written)", .usage = "", .main = stub };

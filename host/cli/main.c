/* clconv's entry point: everything happens in the command table. */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }

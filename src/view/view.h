/* SPDX-License-Identifier: MIT */
/*
 * `trawl view`: babeltrace2-compatible text output of CTF traces.
 */
#ifndef TRAWL_VIEW_H
#define TRAWL_VIEW_H

/*
 * trawl_view_main - runs `trawl view` with babeltrace2-style options and
 * trace paths. @argv[0] is the command name ("view"). Prints the events on
 * stdout, warnings and errors on stderr, and returns the process exit code
 * (0 success, 1 error, 2 usage error).
 */
int trawl_view_main(int argc, char **argv);

#endif /* TRAWL_VIEW_H */

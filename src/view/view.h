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

/*
 * trawl_view_option_arg - for a command that passes options on to
 * trawl_view_main() (`trawl view`): whether @arg, one word of a command line
 * starting with '-', is an option of the view and how it takes its value.
 * Returns 1 when the value is the next word (`--names all`, `-n all`), 0
 * when the word is whole (`--names=all`, `-nall`, `--no-delta`), -1 when
 * the view has no such option (or a flag was given a value).
 */
int trawl_view_option_arg(const char *arg);

#endif /* TRAWL_VIEW_H */

/* SPDX-License-Identifier: MIT */
/* trawl-view: the standalone form of `trawl view`. */
#include "view.h"

int main(int argc, char **argv)
{
	return trawl_view_main(argc, argv);
}

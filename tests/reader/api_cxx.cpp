// SPDX-License-Identifier: MIT
// <trawl/reader.h> compiles as C++ and links from C++.
#include <trawl/reader.h>

int main()
{
	const char *paths[] = { "/nonexistent-trawl-path" };
	struct trawl_reader *r = nullptr;
	int ret = trawl_reader_open(paths, 1, &r);

	trawl_reader_destroy(r);
	return ret < 0 ? 0 : 1;
}

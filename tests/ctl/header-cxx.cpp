// SPDX-License-Identifier: MIT
// <trawl/ctl.h> compiles as C++ and its functions link from C++.
#include <trawl/ctl.h>

int main()
{
	return trawl_ctl_version()[0] ? 0 : 1;
}

/* SPDX-License-Identifier: MIT */
/* Nothing of its own: libbench-ust-multi.so only needs the four provider
 * libraries (CMakeLists.txt), whose constructors dlopen() runs. */
int bench_ust_multi(void);

__attribute__((visibility("default"))) int bench_ust_multi(void)
{
	return 4;
}

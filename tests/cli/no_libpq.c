/*
 * no_libpq.c — an LD_PRELOAD shim for t182: dlopen of libpq fails, as on a host without the
 * libpq5 package, and dlerror says so; every other dlopen is the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

static int no_libpq_failed;

void *dlopen(const char *file, int mode)
{
	void *(*real)(const char *, int);

	if (file && strstr(file, "libpq")) {
		no_libpq_failed = 1;
		return NULL;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "dlopen");
	return real(file, mode);
}

char *dlerror(void)
{
	char *(*real)(void);

	if (no_libpq_failed) {
		no_libpq_failed = 0;
		return (
		    char *)"libpq.so.5: cannot open shared object file: No such file or directory";
	}
	*(void **)&real = dlsym(RTLD_NEXT, "dlerror");
	return real();
}

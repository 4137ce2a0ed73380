/*
 * thp_exec — runs a program with transparent huge pages in some state, for the tests of the
 * THP condition (t125). Built by the tests that use it.
 *
 *   thp_exec off PROGRAM [ARG...]      with THP off (prctl PR_SET_THP_DISABLE), which PROGRAM
 *                                      and everything it starts inherit
 *   thp_exec refuse PROGRAM [ARG...]   under a seccomp filter on which prctl(PR_SET_THP_DISABLE)
 *                                      fails with EINVAL and does nothing, as a container's
 *                                      filter or an old kernel would
 *   thp_exec fake PROGRAM [ARG...]     under a filter on which that prctl returns 0 and does
 *                                      nothing: only reading THP_enabled back shows it
 *
 * Every other system call, and every other prctl, is allowed; the filter is inherited by
 * everything PROGRAM starts. x86-64 system call numbers: the filter does not check the
 * architecture, which a test helper run on the host it was built for does not need.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned ret;

	if (argc < 3 || (strcmp(argv[1], "refuse") != 0 && strcmp(argv[1], "fake") != 0 &&
	                 strcmp(argv[1], "off") != 0)) {
		fprintf(stderr, "usage: thp_exec off|refuse|fake PROGRAM [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "off") == 0) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
			perror("thp_exec: prctl(PR_SET_THP_DISABLE, 1)");
			return 2;
		}
		execv(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	ret = SECCOMP_RET_ERRNO | (strcmp(argv[1], "refuse") == 0 ? EINVAL : 0);
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_THP_DISABLE, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, ret),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("thp_exec: cannot install the filter");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}

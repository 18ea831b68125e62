/*
 * dropids.c - a process that gives up root, then says which uids its
 * tasks have (/proc/self/task/N/status: real, effective, saved, fs), the
 * profiler's sampling thread among them (Note [The helper's credentials]
 * in src/runtime/credentials.c).  Run as root.
 *
 *   dropids setuid      setgroups, setgid, setuid to 65534
 *   dropids initgroups  initgroups("root"...) then setresgid, setresuid
 *   dropids seteuid     seteuid(65534), says, seteuid(0), says again
 *   dropids filtered M  puts itself under a seccomp filter that allows
 *                       every call, then execs itself as `dropids M`: the
 *                       profiler's sampler, started under a filter, is
 *                       made anew at each change, not asked to follow
 *
 * It prints "uids U: N tasks" for each distinct Uid line, and works a
 * little in work() before and after.
 */
#define _GNU_SOURCE /* setresuid */
#include <dirent.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	unsigned long x = 1;

	for (long i = 0; i < 2000000; i++)
		x = x * 2654435761u + 1;
	sink = x;
}

/* The Uid line of task `tid`, without its tabs, in `uid`. */
static int task_uids(const char *tid, char *uid, size_t size)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "Uid:", 4) == 0) {
			char *c;

			snprintf(uid, size, "%s", line + 5);
			for (c = uid; *c; c++)
				if (*c == '\t' || *c == '\n')
					*c = *c == '\t' ? ' ' : '\0';
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static void say(void)
{
	char seen[8][64], uid[64];
	int count[8] = {0}, n = 0, i;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !task_uids(e->d_name, uid, sizeof uid))
			continue;
		for (i = 0; i < n && strcmp(seen[i], uid) != 0; i++)
			;
		if (i == n && n < 8)
			snprintf(seen[n++], sizeof seen[0], "%s", uid);
		if (i < n)
			count[i]++;
	}
	if (d != NULL)
		closedir(d);
	for (i = 0; i < n; i++)
		printf("uids %s: %d tasks\n", seen[i], count[i]);
	fflush(stdout);
}

static int filtered(char **argv)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};

	if (argv[2] == NULL || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return perror("filter"), 1;
	execv("/proc/self/exe", (char *[]){argv[0], argv[2], NULL});
	return perror("exec"), 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "setuid";
	gid_t none[1] = {65534};

	if (strcmp(mode, "filtered") == 0)
		return filtered(argv);
	work();
	if (strcmp(mode, "setuid") == 0) {
		if (setgroups(1, none) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			return perror("setuid"), 1;
	} else if (strcmp(mode, "initgroups") == 0) {
		if (initgroups("root", 65534) != 0 || setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			return perror("initgroups"), 1;
	} else if (strcmp(mode, "seteuid") == 0) {
		if (seteuid(65534) != 0)
			return perror("seteuid"), 1;
		work();
		say();
		if (seteuid(0) != 0)
			return perror("seteuid back"), 1;
	}
	work();
	say();
	return 0;
}

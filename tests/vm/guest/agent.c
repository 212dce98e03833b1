// SPDX-License-Identifier: GPL-2.0
/*
 * compsc-agent: runs shell commands for the test harness over a
 * virtio-serial port (tools/compsc_harness/vm.py is the other end).
 *
 * Why a program and not a shell loop on the serial console: commands must
 * not be confused with kernel messages, output is arbitrary bytes, each
 * command needs its own timeout, and a test may have several commands in
 * flight (e.g. a traffic generator while it reloads a driver).
 *
 * Protocol, headers are one ASCII line, bodies are raw bytes:
 *   guest -> host, once:  "HELLO compsc-agent 1\n"
 *   host -> guest:        "RUN <id> <timeout_ms> <cmdlen> <inlen>\n" cmd stdin
 *   guest -> host:        "END <id> <status> <timedout> <outlen> <errlen>\n" out err
 * status is the exit code, or 128+signal; timedout is 1 if the agent killed
 * the command's process group because timeout_ms expired (0 = no limit).
 * Every request runs in its own child; frames are written whole under a
 * lock, so replies may arrive in any order but never interleave.
 *
 * usage: compsc-agent /dev/vportNpM
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMD		(1u << 20)
#define MAX_STDIN	(64u << 20)
#define MAX_OUT		(64u << 20)

static int port;	/* the virtio-serial port, shared by all children */
static int lockfd;	/* flock()ed around each reply frame */

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Reads one '\n'-terminated header line, byte by byte (headers are short). */
static int read_line(int fd, char *buf, size_t len)
{
	size_t i = 0;

	while (i + 1 < len) {
		if (read_full(fd, &buf[i], 1))
			return -1;
		if (buf[i] == '\n') {
			buf[i] = 0;
			return 0;
		}
		i++;
	}
	return -1;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;

	*len = 0;
	if (fd < 0 || fstat(fd, &st))
		return NULL;
	*len = st.st_size > MAX_OUT ? MAX_OUT : st.st_size;
	buf = malloc(*len + 1);
	if (!buf || read_full(fd, buf, *len))
		*len = 0;
	close(fd);
	return buf;
}

static void reply(unsigned long id, int status, int timedout,
		  const char *outp, const char *errp)
{
	size_t outlen, errlen;
	char *out = slurp(outp, &outlen), *err = slurp(errp, &errlen);
	char hdr[128];
	int n = snprintf(hdr, sizeof(hdr), "END %lu %d %d %zu %zu\n",
			 id, status, timedout, outlen, errlen);

	flock(lockfd, LOCK_EX);
	write_full(port, hdr, n);
	write_full(port, out ? out : "", outlen);
	write_full(port, err ? err : "", errlen);
	flock(lockfd, LOCK_UN);
}

/* Waits for pid up to timeout_ms (0 = forever); kills its group on expiry. */
static int wait_cmd(pid_t pid, long timeout_ms, int *timedout)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	sigset_t set;
	int st;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	*timedout = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (timeout_ms == 0) {
			waitpid(pid, &st, 0);
			break;
		}
		if (sigtimedwait(&set, NULL, &ts) < 0 && errno == EAGAIN) {
			*timedout = 1;
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* Child side of one request: run cmd with stdin, reply, exit. */
static void run_one(unsigned long id, long timeout_ms, const char *cmd,
		    const char *in, size_t inlen)
{
	char inp[64], outp[64], errp[64];
	int timedout, status, fd;
	sigset_t set;
	pid_t pid;

	snprintf(inp, sizeof(inp), "/tmp/.agent.%lu.in", id);
	snprintf(outp, sizeof(outp), "/tmp/.agent.%lu.out", id);
	snprintf(errp, sizeof(errp), "/tmp/.agent.%lu.err", id);
	fd = open(inp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write_full(fd, in, inlen)) {
		reply(id, 255, 0, "/dev/null", "/dev/null");
		_exit(1);
	}
	close(fd);

	/* Block SIGCHLD before fork so sigtimedwait() cannot miss it. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		setpgid(0, 0);	/* own group: a timeout kills all of it */
		if (dup2(open(inp, O_RDONLY), 0) < 0 ||
		    dup2(open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600), 1) < 0 ||
		    dup2(open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600), 2) < 0)
			_exit(127);
		close(port);
		close(lockfd);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);	/* also here: no race with the child's own call */
	status = pid < 0 ? 255 : wait_cmd(pid, timeout_ms, &timedout);
	reply(id, status, pid < 0 ? 0 : timedout, outp, errp);
	unlink(inp);
	unlink(outp);
	unlink(errp);
	_exit(0);
}

int main(int argc, char **argv)
{
	static const char hello[] = "HELLO compsc-agent 1\n";
	char hdr[256];

	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/vportNpM\n", argv[0]);
		return 2;
	}
	port = open(argv[1], O_RDWR | O_CLOEXEC);
	lockfd = open("/tmp/.agent.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (port < 0 || lockfd < 0) {
		perror("compsc-agent: open");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);	/* request children reap themselves */
	signal(SIGPIPE, SIG_IGN);
	write_full(port, hello, sizeof(hello) - 1);

	while (read_line(port, hdr, sizeof(hdr)) == 0) {
		unsigned long id, cmdlen, inlen;
		long timeout_ms;
		char *cmd, *in;

		if (sscanf(hdr, "RUN %lu %ld %lu %lu", &id, &timeout_ms,
			   &cmdlen, &inlen) != 4 ||
		    cmdlen > MAX_CMD || inlen > MAX_STDIN) {
			fprintf(stderr, "compsc-agent: bad header '%s'\n", hdr);
			continue;	/* resync on the next line */
		}
		cmd = calloc(1, cmdlen + 1);
		in = malloc(inlen + 1);
		if (!cmd || !in || read_full(port, cmd, cmdlen) ||
		    read_full(port, in, inlen))
			break;
		if (fork() == 0) {
			signal(SIGCHLD, SIG_DFL);
			run_one(id, timeout_ms, cmd, in, inlen);
		}
		free(cmd);
		free(in);
	}
	fprintf(stderr, "compsc-agent: port closed\n");
	return 1;
}

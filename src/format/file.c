/*
 * file.c - profiles to and from files: whole-buffer I/O around the
 * encoder and the decoder.
 *
 * A profile is read in one piece because the decoder checks the CRC of the
 * whole file before trusting any of it.  The 1 GiB limit is far above any
 * real profile (a million contexts take a few tens of MB) and keeps a
 * wrong argument, such as a disk image, from exhausting memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "wire.h"

#define MAX_FILE ((size_t)1 << 30)

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) { /* should not happen for n > 0; do not spin */
			errno = EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int ccp_format_write_fd(const struct ccp_profile *p, int fd)
{
	unsigned char *buf;
	size_t len;
	if (ccp_format_encode(p, &buf, &len) != 0)
		return -1;
	int rc = write_all(fd, buf, len);
	int saved = errno;
	free(buf);
	errno = saved;
	return rc;
}

static int too_large(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "file too large (over 1 GiB; not a ccprof profile?)");
	return -1;
}

static int io_error(char *err, size_t errlen, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", strerror(e));
	return -1;
}

/* Read all of fd, at most MAX_FILE bytes.  Regular files are sized up
 * front (one byte extra to see EOF without another realloc); pipes and
 * devices grow as data comes, and are refused as soon as their first
 * bytes cannot start a profile: /dev/zero or 2 GB of zeros on a pipe were
 * read up to the limit (a second, a GB of memory) before "file too
 * large", where a regular file says "bad magic". */
static int read_all(int fd, unsigned char **out, size_t *outlen, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return io_error(err, errlen, errno);
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > MAX_FILE)
		return too_large(err, errlen);
	size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, n = 0;
	unsigned char *buf = malloc(cap);
	int e = 0;
	while (buf) {
		if (n == cap) {
			if (n > MAX_FILE)
				break;
			size_t ncap = cap > MAX_FILE / 2 ? MAX_FILE + 1 : cap * 2;
			unsigned char *nb = realloc(buf, ncap);
			if (!nb)
				break;
			buf = nb;
			cap = ncap;
		}
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e = k < 0 ? errno : 0;
			break;
		}
		if (n < CCP_HEADER_SIZE && n + (size_t)k >= CCP_HEADER_SIZE &&
		    ccp_format_check_start(buf, n + (size_t)k, err, errlen) != 0) {
			free(buf);
			return -1;
		}
		n += (size_t)k;
	}
	if (buf && !e && n < cap) { /* stopped at end of file */
		*out = buf;
		*outlen = n;
		return 0;
	}
	int huge = buf && n > MAX_FILE;
	free(buf);
	if (e)
		return io_error(err, errlen, e);
	return huge ? too_large(err, errlen) : io_error(err, errlen, ENOMEM);
}

int ccp_format_read_file(const char *path, struct ccp_profile *p, char *err, size_t errlen)
{
	return ccp_format_read_file_sized(path, p, NULL, err, errlen);
}

int ccp_format_read_file_sized(const char *path, struct ccp_profile *p, size_t *bytes, char *err,
			       size_t errlen)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	memset(p, 0, sizeof *p);
	/* Opening a FIFO blocks until it has a writer: open without waiting,
	 * then read normally (a pipe with a writer still delivers its data;
	 * one without reads as empty). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return io_error(err, errlen, errno);
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	int rc = read_all(fd, &buf, &len, err, errlen);
	close(fd);
	if (rc != 0)
		return -1;
	rc = ccp_format_decode(buf, len, p, err, errlen);
	free(buf);
	if (bytes)
		*bytes = len;
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the /dev/ordo kselftests: raw ioctl wrappers that
 * return -errno, so tests can check exact error codes.
 */
#ifndef ORDO_SELFTEST_H
#define ORDO_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/ordo.h>

#define ORDO_DEV "/dev/ordo"
#define ORDO_SYSFS "/sys/class/misc/ordo"

/*
 * ORDO_TIME_SCALE=N (make check-debug sets it for its KASAN and lockdep
 * kernel): the kernel is about N times slower, so a test's time bounds
 * are N times longer.  The work asked for (reads, writes, keys) stays.
 */
static inline unsigned int t_time_scale(void)
{
	static unsigned int scale;
	const char *env;
	int n;

	if (!scale) {
		env = getenv("ORDO_TIME_SCALE");
		n = env ? atoi(env) : 1;
		scale = n < 1 ? 1 : n > 100 ? 100 : n;
	}
	return scale;
}

static inline int t_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline int t_kv(int fd, unsigned long cmd, uint64_t key, void *val,
		       uint32_t len)
{
	struct ordo_kv kv = {
		.key = key, .value = (uintptr_t)val, .value_len = len,
	};

	return t_ioctl(fd, cmd, &kv);
}

static inline uint32_t t_value_size(int fd)
{
	struct ordo_info info;

	if (t_ioctl(fd, ORDO_IOC_INFO, &info))
		return 0;
	return info.value_size;
}

/* The longest value a write may carry (longer than value_size: out of line). */
static inline uint32_t t_value_max(int fd)
{
	struct ordo_info info;

	if (t_ioctl(fd, ORDO_IOC_INFO, &info))
		return 0;
	return info.value_max;
}

/* A value that encodes its key and a version: readers can check it. */
static inline void t_fill(void *val, uint32_t size, uint64_t key, uint64_t ver)
{
	uint64_t *w = val;
	uint32_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = (key * 0x9e3779b97f4a7c15ULL) ^ (ver << 1) ^ i;
}

/* The version t_fill() stored in @val for @key, or -1 if it is not one. */
static inline int64_t t_version(const void *val, uint32_t size, uint64_t key)
{
	const uint64_t *w = val;
	uint64_t ver = ((w[0] ^ (key * 0x9e3779b97f4a7c15ULL)) >> 1);
	uint32_t i;

	for (i = 0; i < size / 8; i++)
		if (w[i] != ((key * 0x9e3779b97f4a7c15ULL) ^ (ver << 1) ^ i))
			return -1;
	return (int64_t)ver;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static inline long long t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Write a module parameter, sysfs or debugfs file; 0 or -errno. */
static inline int t_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Read a (sysfs) file into @buf, NUL-terminated; 0 or -errno. */
static inline int t_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static inline unsigned long long t_sysfs_u64(const char *name)
{
	char path[256], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), ORDO_SYSFS "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoull(buf, NULL, 10);
}

/* Delete every key (the store is shared by all tests of a run). */
static inline int t_clear(int fd)
{
	uint64_t keys[1024];
	struct ordo_scan sc;
	uint32_t i;
	int ret;

	for (;;) {
		memset(&sc, 0, sizeof(sc));
		sc.keys = (uintptr_t)keys;
		sc.count = 1024;
		ret = t_ioctl(fd, ORDO_IOC_SCAN, &sc);
		if (ret)
			return ret;
		if (!sc.returned)
			return 0;
		for (i = 0; i < sc.returned; i++) {
			ret = t_kv(fd, ORDO_IOC_DELETE, keys[i], NULL, 0);
			if (ret)
				return ret;
		}
	}
}

/*
 * The geometry parameters the module was loaded with, as " k=v k=v", to
 * load it again the same way.
 */
static inline void t_module_params(char *buf, size_t len)
{
	static const char * const names[] = {
		"value_size", "leaf_slots", "max_memory_mb", "chunk_kb",
	};
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128], v[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/module/ordo/parameters/%s",
			 names[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(v, sizeof(v), f))
			v[strcspn(v, "\n")] = 0;
		fclose(f);
		off += snprintf(buf + off, len - off, " %s=%s", names[i], v);
	}
}

#endif /* ORDO_SELFTEST_H */

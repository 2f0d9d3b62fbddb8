// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ordo basics: INFO, unknown and malformed ioctls, argument sizes,
 * open/close races, unload refused while open, sysfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/ordo_node.h>
#include <linux/ordo.h>

#include "kselftest_harness.h"
#include "ordo_test.h"

#define DEV "/dev/ordo"
#define SYSFS "/sys/class/misc/ordo"

/* The INFO ioctl number for an argument struct of @size bytes. */
#define INFO_SIZED(size) _IOC(_IOC_READ, ORDO_IOC_MAGIC, 0x00, size)

TEST(device_node_is_private)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 0777);
}

TEST(info)
{
	struct ordo_info info;
	char buf[64];
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, ioctl(fd, ORDO_IOC_INFO, &info));
	EXPECT_EQ(ORDO_ABI_VERSION, info.abi_version);
	EXPECT_EQ(0, info.flags);
	EXPECT_EQ(ordo_value_len_max(info.chunk_size), info.value_max);
	EXPECT_NE(0, info.version[0]);
	EXPECT_NE(NULL, memchr(info.version, 0, sizeof(info.version)));
	EXPECT_LE(8, info.value_size);
	EXPECT_GE(1024, info.value_size);
	EXPECT_LE(4, info.leaf_slots);
	EXPECT_LE(64 + info.leaf_slots * (8 + info.value_size), info.node_size);
	EXPECT_EQ(0, info.node_size % 64);
	EXPECT_LE(2, info.inner_fanout);
	EXPECT_EQ(0, info.chunk_size & (info.chunk_size - 1));
	EXPECT_LE(1, info.max_chunks);
	EXPECT_LE(info.pool_bytes_used, info.pool_bytes_total);
	EXPECT_LE(1, info.height);
	/* sysfs and INFO tell the same version. */
	ASSERT_EQ(0, t_read_file(SYSFS "/version", buf, sizeof(buf)));
	buf[strcspn(buf, "\n")] = 0;
	EXPECT_STREQ(info.version, buf);
	close(fd);
}

TEST(info_short_struct_rejected)
{
	char small[sizeof(struct ordo_info)];
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, INFO_SIZED(8), small));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, INFO_SIZED(sizeof(struct ordo_info) - 1), small));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(info_larger_struct_zero_filled)
{
	unsigned char big[sizeof(struct ordo_info) + 64];
	size_t i;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	memset(big, 0xff, sizeof(big));
	ASSERT_EQ(0, ioctl(fd, INFO_SIZED(sizeof(big)), big));
	for (i = sizeof(struct ordo_info); i < sizeof(big); i++)
		ASSERT_EQ(0, big[i]);
	EXPECT_EQ(ORDO_ABI_VERSION, ((struct ordo_info *)big)->abi_version);
	close(fd);
}

TEST(info_bad_pointers)
{
	void *ro;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, ORDO_IOC_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, ORDO_IOC_INFO, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	/* A read-only page cannot receive the answer. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-1, ioctl(fd, ORDO_IOC_INFO, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, 4096);
	close(fd);
}

/*
 * An output struct is written front to back: a buffer whose head is
 * read-only fails before its writable tail is zeroed, and one whose tail
 * runs into an unmapped page gets the struct before the -EFAULT.
 */
TEST(info_output_written_front_to_back)
{
	size_t pg = 4096, n = sizeof(struct ordo_info), i, changed = 0;
	unsigned char *m;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0xa5, 3 * pg);
	ASSERT_EQ(0, mprotect(m, pg, PROT_READ));
	ASSERT_EQ(0, mprotect(m + 2 * pg, pg, PROT_NONE));
	/* The struct in the read-only page, the extra bytes after it. */
	EXPECT_EQ(-1, ioctl(fd, INFO_SIZED(pg), m + pg - n));
	EXPECT_EQ(EFAULT, errno);
	for (i = pg; i < 2 * pg; i++)
		changed += m[i] != 0xa5;
	EXPECT_EQ(0, changed);
	/* The struct writable, the extra bytes running into no page. */
	EXPECT_EQ(-1, ioctl(fd, INFO_SIZED(2 * n), m + 2 * pg - n - 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(ORDO_ABI_VERSION,
		  ((struct ordo_info *)(m + 2 * pg - n - 8))->abi_version);
	munmap(m, 3 * pg);
	close(fd);
}

TEST(unknown_ioctls)
{
	struct ordo_info info;
	unsigned int bad[] = {
		_IO(ORDO_IOC_MAGIC, 0x7f),
		_IOWR(ORDO_IOC_MAGIC, 0xff, struct ordo_info),
		_IOR('T', 0x00, struct ordo_info),	/* other magic, same nr */
		_IOW(ORDO_IOC_MAGIC, 0x00, struct ordo_info), /* wrong dir */
		_IO(ORDO_IOC_MAGIC, 0x00),
		0,
		0xffffffff,
	};
	size_t i;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, bad[i], &info)) {
			TH_LOG("ioctl %#x accepted", bad[i]);
		}
		EXPECT_EQ(ENOTTY, errno) {
			TH_LOG("ioctl %#x: errno %d", bad[i], errno);
		}
	}
	close(fd);
}

static void *open_close_loop(void *arg)
{
	struct ordo_info info;
	int i, fails = 0;

	for (i = 0; i < 2000; i++) {
		int fd = open(DEV, O_RDWR);

		if (fd < 0 || ioctl(fd, ORDO_IOC_INFO, &info) ||
		    info.abi_version != ORDO_ABI_VERSION)
			fails++;
		if (fd >= 0)
			close(fd);
	}
	*(int *)arg = fails;
	return NULL;
}

/*
 * 8,000 opens, ioctls and closes: well under a second on Debian's kernel,
 * over 30 s (the harness's default bound) on the debug lane's KASAN and
 * kmemleak kernel under load.  A fixture only to give it a wider bound.
 */
FIXTURE(race) {};
FIXTURE_SETUP(race) {}
FIXTURE_TEARDOWN(race) {}

TEST_F_TIMEOUT(race, open_close_race, 600)
{
	pthread_t t[4];
	int fails[4], i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, open_close_loop,
					    &fails[i]));
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, fails[i]);
	}
}

/* One thread closes the fd while others are inside ioctl on it. */
static void *ioctl_loop(void *arg)
{
	struct ordo_info info;
	int fd = *(int *)arg, i;

	for (i = 0; i < 5000; i++)
		if (ioctl(fd, ORDO_IOC_INFO, &info) && errno != EBADF)
			return (void *)1;
	return NULL;
}

TEST(close_while_in_ioctl)
{
	pthread_t t[3];
	void *ret;
	int fd, i, r;

	for (r = 0; r < 20; r++) {
		fd = open(DEV, O_RDWR);
		ASSERT_LE(0, fd);
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, pthread_create(&t[i], NULL, ioctl_loop, &fd));
		usleep(100 * r);
		close(fd);
		for (i = 0; i < 3; i++) {
			pthread_join(t[i], &ret);
			EXPECT_EQ(NULL, ret);
		}
	}
}

TEST(unload_refused_while_open)
{
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "ordo", O_NONBLOCK));
	EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY);
	close(fd);
	EXPECT_EQ(0, access(DEV, F_OK));
}

TEST(sysfs_stats_group)
{
	static const char * const files[] = {
		"gets", "puts", "inserts", "updates", "deletes", "scans",
		"errors",
	};
	char path[128], buf[64], *end;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), SYSFS "/stats/%s", files[i]);
		ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf))) {
			TH_LOG("%s missing", path);
		}
		strtoull(buf, &end, 10);
		EXPECT_EQ('\n', *end);
	}
}

TEST(errors_are_counted)
{
	char buf[64];
	unsigned long long before, after;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, t_read_file(SYSFS "/stats/errors", buf, sizeof(buf)));
	before = strtoull(buf, NULL, 10);
	EXPECT_EQ(-1, ioctl(fd, INFO_SIZED(4), buf));
	ASSERT_EQ(0, t_read_file(SYSFS "/stats/errors", buf, sizeof(buf)));
	after = strtoull(buf, NULL, 10);
	EXPECT_LE(before + 1, after);
	close(fd);
}

TEST_HARNESS_MAIN

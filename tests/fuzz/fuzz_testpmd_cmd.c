/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz prdma-testpmd's command parser: each input is a batch of up to 16
 * command lines run through DPDK's cmdline_parse() on the tool's whole
 * instruction context (apps/prdma-testpmd, everything but main.c), the way
 * --cmdline-file runs them. Commands do their work for real (devices are
 * probed, objects created, QPs connected), and at the end of each input
 * everything is stopped and destroyed, so no state crosses inputs.
 *
 * Lines naming pcap=, pci=, sysfs= (they touch the host) or sleep (it
 * blocks) are skipped.
 */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>

#include "fz_common.h"
#include "tp.h"

#define FZ_LINES   16
#define FZ_LINE    256

/* main.c's context, built the same way from the command families. */
cmdline_parse_ctx_t *tp_ctx;

static struct cmdline *cl;
static int ready;

static void
setup(void)
{
	cmdline_parse_inst_t **fams[] = { tp_cmds_dev, tp_cmds_obj, tp_cmds_cm, tp_cmds_fwd,
					  tp_cmds_show, tp_cmds_misc };
	unsigned int f, i, n = 0;
	int fd;

	fz_eal_init();
	for (f = 0; f < RTE_DIM(fams); f++)
		for (i = 0; fams[f][i] != NULL; i++)
			n++;
	tp_ctx = calloc(n + 1, sizeof(*tp_ctx));
	FZ_CHECK(tp_ctx != NULL);
	n = 0;
	for (f = 0; f < RTE_DIM(fams); f++)
		for (i = 0; fams[f][i] != NULL; i++)
			tp_ctx[n++] = fams[f][i];
	cl = cmdline_new(tp_ctx, "fz> ", -1, -1);
	FZ_CHECK(cl != NULL);
	/* The tool's answers would drown libFuzzer's own output. */
	if (getenv("FZ_VERBOSE") == NULL) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
	}
	ready = 1;
}

static int
line_allowed(const char *s)
{
	return strstr(s, "pcap") == NULL && strstr(s, "pci") == NULL &&
	       strstr(s, "sysfs") == NULL && strstr(s, "sleep") == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[FZ_LINE + 2];
	unsigned int nb = 0;
	size_t off = 0, len;

	if (!ready)
		setup();
	while (off < size && nb < FZ_LINES) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);

		len = nl != NULL ? (size_t)(nl - (data + off)) : size - off;
		if (len <= FZ_LINE) {
			memcpy(line, data + off, len);
			line[len] = '\0';
			/* cmdline stops at the first NUL: the line is what precedes it */
			if (line_allowed(line)) {
				strcat(line, "\n");
				pthread_mutex_lock(&tp.lock);
				(void)cmdline_parse(cl, line);
				pthread_mutex_unlock(&tp.lock);
			}
		}
		off += len + 1;
		nb++;
	}
	/* The tool's own shutdown sequence (main.c). */
	pthread_mutex_lock(&tp.lock);
	if (tp_fwd_running())
		tp_fwd_stop();
	tp_cm_stop();
	tp_objs_cleanup();
	pthread_mutex_unlock(&tp.lock);
	tp.quit = 0;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-testpmd [EAL args] -- [-i] [--cmdline-file FILE]
 *
 * Interactive on a terminal (completion, history, help); otherwise, or
 * with --cmdline-file, a batch: each line is echoed after the prompt and
 * run, and a bad line prints one "Error:" line and the batch goes on.
 */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline_rdline.h>
#include <cmdline_socket.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "tp.h"

#define TP_PROMPT "testpmd> "

cmdline_parse_ctx_t *tp_ctx;

static int
ctx_build(void)
{
	cmdline_parse_inst_t **fams[] = { tp_cmds_dev, tp_cmds_obj, tp_cmds_cm, tp_cmds_fwd,
					  tp_cmds_show, tp_cmds_misc };
	unsigned int f, i, n = 0;

	for (f = 0; f < RTE_DIM(fams); f++)
		for (i = 0; fams[f][i] != NULL; i++)
			n++;
	tp_ctx = calloc(n + 1, sizeof(*tp_ctx));
	if (tp_ctx == NULL)
		return -ENOMEM;
	n = 0;
	for (f = 0; f < RTE_DIM(fams); f++)
		for (i = 0; fams[f][i] != NULL; i++)
			tp_ctx[n++] = fams[f][i];
	return 0;
}

static unsigned int
run_batch(FILE *in)
{
	char line[1024];
	struct cmdline *cl;
	unsigned int errors = 0, cmds = 0;
	size_t len;
	int ret;

	/* No terminal: the library's own echo and prompt are not wanted. */
	cl = cmdline_new(tp_ctx, TP_PROMPT, -1, -1);
	if (cl == NULL) {
		tp_err("cannot create the command line");
		return 1;
	}
	while (!tp.quit && fgets(line, sizeof(line), in) != NULL) {
		len = strcspn(line, "\r\n");
		line[len] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		tp_out(TP_PROMPT "%s", line);
		if (line[strspn(line, " \t")] == '#')
			continue;
		cmds++;
		strcat(line, "\n");
		pthread_mutex_lock(&tp.lock);
		ret = cmdline_parse(cl, line);
		pthread_mutex_unlock(&tp.lock);
		/* cmdline_parse() returns the line length once a command ran. */
		if (ret >= 0)
			continue;
		switch (ret) {
		case CMDLINE_PARSE_AMBIGUOUS:
			tp_err("ambiguous command");
			errors++;
			break;
		case CMDLINE_PARSE_NOMATCH:
			tp_err("unknown command or wrong arguments: %.*s", (int)len, line);
			tp_help_for_line(line);
			errors++;
			break;
		default:
			tp_err("bad arguments: %.*s", (int)len, line);
			tp_help_for_line(line);
			errors++;
			break;
		}
	}
	cmdline_free(cl);
	tp_out("batch done: %u command(s), %u parse error(s)", cmds, errors);
	return errors;
}

static void
run_interactive(void)
{
	struct cmdline *cl = cmdline_stdin_new(tp_ctx, TP_PROMPT);
	int ret;

	if (cl == NULL) {
		tp_err("cannot open the terminal");
		return;
	}
	/* The CM thread shares the tables: each command runs under the lock. */
	while (!tp.quit) {
		pthread_mutex_lock(&tp.lock);
		ret = cmdline_poll(cl);
		pthread_mutex_unlock(&tp.lock);
		if (ret == RDLINE_EXITED || ret < 0)
			break;
		usleep(2000);
	}
	cmdline_stdin_exit(cl);
}

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [-i] [--cmdline-file FILE]\n"
	       "  -i                   interactive even when stdin is not a terminal\n"
	       "  --cmdline-file FILE  run the commands of FILE (echoed), then exit\n"
	       "Without either, a terminal gets the prompt and anything else is read as a "
	       "batch.\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cmdline-file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	int ret, c, interactive = 0;
	FILE *in;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "prdma-testpmd: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ih", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interactive = 1;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage("prdma-testpmd");
			rte_eal_cleanup();
			return 0;
		default:
			usage("prdma-testpmd");
			rte_eal_cleanup();
			return 2;
		}
	}
	if (ctx_build() < 0) {
		rte_eal_cleanup();
		return 1;
	}
	if (file != NULL) {
		in = fopen(file, "r");
		if (in == NULL) {
			fprintf(stderr, "prdma-testpmd: cannot read %s: %s\n", file, strerror(errno));
			rte_eal_cleanup();
			return 2;
		}
		run_batch(in);
		fclose(in);
	} else if (interactive || isatty(STDIN_FILENO)) {
		run_interactive();
	} else {
		run_batch(stdin);
	}
	pthread_mutex_lock(&tp.lock);
	if (tp_fwd_running())
		tp_fwd_stop();
	tp_cm_stop();
	tp_objs_cleanup();
	pthread_mutex_unlock(&tp.lock);
	free(tp_ctx);
	rte_eal_cleanup();
	tp_out("bye");
	return 0;
}

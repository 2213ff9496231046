/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* help, help <section>, quit; and the usage shown after a bad command. */

#include <string.h>

#include <rte_cycles.h>

#include "tp.h"

struct tp_section {
	const char *name;
	const char *what;
	cmdline_parse_inst_t **cmds;
};

static const struct tp_section sections[] = {
	{ "devices", "probe and remove devices", tp_cmds_dev },
	{ "objects", "PDs, MRs, CQs, SRQs, QPs; QP state and local connections", tp_cmds_obj },
	{ "cm", "connections through the connection manager", tp_cmds_cm },
	{ "fwd", "forwarding engines, statistics, fault injection", tp_cmds_fwd },
	{ "show", "displays", tp_cmds_show },
	{ "misc", "help, sleep and quit", tp_cmds_misc },
};

static void
section_print(const struct tp_section *s)
{
	unsigned int i;

	tp_out("%s: %s", s->name, s->what);
	for (i = 0; s->cmds[i] != NULL; i++)
		tp_out("    %s", s->cmds[i]->help_str);
}

/* help [section] */
struct cmd_help_result {
	cmdline_fixed_string_t help;
	cmdline_fixed_string_t section;
};

static cmdline_parse_token_string_t cmd_help_help =
	TOKEN_STRING_INITIALIZER(struct cmd_help_result, help, "help");
static cmdline_parse_token_string_t cmd_help_section =
	TOKEN_STRING_INITIALIZER(struct cmd_help_result, section,
				 "devices#objects#cm#fwd#show#misc#all");

static void
cmd_help_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_help_result *r = parsed;
	unsigned int i;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	for (i = 0; i < RTE_DIM(sections); i++)
		if (strcmp(r->section, "all") == 0 || strcmp(r->section, sections[i].name) == 0)
			section_print(&sections[i]);
}

static cmdline_parse_inst_t cmd_help_section_inst = {
	.f = cmd_help_parsed,
	.help_str = "help <devices|objects|cm|fwd|show|misc|all>: the commands of a section",
	.tokens = { (void *)&cmd_help_help, (void *)&cmd_help_section, NULL },
};

static void
cmd_help_brief_parsed(void *parsed, struct cmdline *cl, void *data)
{
	unsigned int i;

	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_out("prdma-testpmd: 'help <section>' lists a section's commands; TAB completes.");
	for (i = 0; i < RTE_DIM(sections); i++)
		tp_out("  help %-8s %s", sections[i].name, sections[i].what);
	tp_out("  help all      every command");
}

static cmdline_parse_inst_t cmd_help_brief = {
	.f = cmd_help_brief_parsed,
	.help_str = "help: the sections",
	.tokens = { (void *)&cmd_help_help, NULL },
};

/* quit */
struct cmd_quit_result {
	cmdline_fixed_string_t quit;
};

static cmdline_parse_token_string_t cmd_quit_quit =
	TOKEN_STRING_INITIALIZER(struct cmd_quit_result, quit, "quit");

static void
cmd_quit_parsed(void *parsed, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed);
	RTE_SET_USED(data);
	tp.quit = 1;
	if (cl != NULL)
		cmdline_quit(cl);
}

static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.help_str = "quit: stop everything, destroy every object and exit",
	.tokens = { (void *)&cmd_quit_quit, NULL },
};

/* sleep <ms>: lets a batch give the engines time between commands */
struct cmd_sleep_result {
	cmdline_fixed_string_t sleep;
	uint32_t ms;
};

static cmdline_parse_token_string_t cmd_sleep_sleep =
	TOKEN_STRING_INITIALIZER(struct cmd_sleep_result, sleep, "sleep");
static cmdline_parse_token_num_t cmd_sleep_ms =
	TOKEN_NUM_INITIALIZER(struct cmd_sleep_result, ms, RTE_UINT32);

static void
cmd_sleep_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_sleep_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (r->ms > 60000) {
		tp_err("sleep %u ms: at most 60000", r->ms);
		return;
	}
	/* The CM thread keeps running meanwhile. */
	pthread_mutex_unlock(&tp.lock);
	rte_delay_us_sleep(r->ms * 1000u);
	pthread_mutex_lock(&tp.lock);
}

static cmdline_parse_inst_t cmd_sleep = {
	.f = cmd_sleep_parsed,
	.help_str = "sleep <ms>: wait (in a batch, to let the engines run)",
	.tokens = { (void *)&cmd_sleep_sleep, (void *)&cmd_sleep_ms, NULL },
};

cmdline_parse_inst_t *tp_cmds_misc[] = {
	&cmd_help_brief, &cmd_help_section_inst, &cmd_sleep, &cmd_quit, NULL,
};

/* Does fixed token @p t (maybe "a#b#c") accept word @p w? */
static int
token_accepts(cmdline_parse_token_hdr_t *hdr, const char *w, size_t wl)
{
	cmdline_parse_token_string_t *t = (cmdline_parse_token_string_t *)hdr;
	const char *s, *e;

	if (hdr->ops != &cmdline_token_string_ops || t->string_data.str == NULL)
		return 0;
	for (s = t->string_data.str; *s != '\0'; s = *e == '#' ? e + 1 : e) {
		e = strchr(s, '#');
		if (e == NULL)
			e = s + strlen(s);
		if ((size_t)(e - s) == wl && strncmp(s, w, wl) == 0)
			return 1;
	}
	return 0;
}

/* How many leading fixed words of @p inst the line's words match. */
static unsigned int
words_matched(const cmdline_parse_inst_t *inst, const char *line)
{
	const char *w = line;
	unsigned int n = 0;
	size_t wl;

	for (;;) {
		w += strspn(w, " \t");
		wl = strcspn(w, " \t\r\n");
		if (wl == 0 || inst->tokens[n] == NULL ||
		    !token_accepts(inst->tokens[n], w, wl))
			return n;
		n++;
		w += wl;
	}
}

void
tp_help_for_line(const char *line)
{
	unsigned int i, best = 0, m;

	for (i = 0; tp_ctx[i] != NULL; i++) {
		m = words_matched(tp_ctx[i], line);
		if (m > best)
			best = m;
	}
	if (best == 0) {
		tp_out("  'help' lists the commands");
		return;
	}
	/* The commands that share the most leading words with the line. */
	for (i = 0; tp_ctx[i] != NULL; i++)
		if (words_matched(tp_ctx[i], line) == best)
			tp_out("  usage: %s", tp_ctx[i]->help_str);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_HERMON_TRACE_MATCH_H
#define T_HERMON_TRACE_MATCH_H

/*
 * Compare the model's trace of firmware commands (and doorbells) with an
 * expected sequence written as data in tests/data/hermon/<name>.trace:
 *
 *   NAME [REP] [key=value ...]    # comment
 *
 * NAME is a firmware opcode name (hermon_cmd_opcode_name), RESET, or DB
 * (a UAR doorbell). REP is '+' (one or more), '*' (any number) or '?'
 * (optional); without it the step happens exactly once. Keys: mod (in_mod),
 * opm (op_mod), st (status), f0..f3 (the mailbox fields of
 * hermon_model_trace_ev), off (doorbell offset in its UAR page), page (its
 * UAR page). A line
 * starting with '-' is a step the Linux driver takes there and the PMD does
 * not: it is listed for the reader and must NOT appear in the trace.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hermon_model.h"
#include "hermon_regs.h"

#define T_TR_MAX_KEYS 6

struct t_tr_step {
	char name[24];
	char rep;                 /* 0, '+', '*', '?' */
	bool absent;              /* a '-' line */
	unsigned int nkeys;
	char key[T_TR_MAX_KEYS][8];
	uint64_t val[T_TR_MAX_KEYS];
	unsigned int line;
};

static const char *
t_tr_name(const struct hermon_model_trace_ev *e, char *buf, size_t len)
{
	const char *n;

	if (e->kind == HERMON_MODEL_TRACE_RESET)
		return "RESET";
	if (e->kind == HERMON_MODEL_TRACE_DB)
		return "DB";
	n = hermon_cmd_opcode_name(e->opcode);
	if (n != NULL)
		return n;
	snprintf(buf, len, "0x%03x", e->opcode);
	return buf;
}

static bool
t_tr_key(const struct hermon_model_trace_ev *e, const char *k, uint64_t *v)
{
	if (strcmp(k, "mod") == 0)
		*v = e->in_mod;
	else if (strcmp(k, "opm") == 0)
		*v = e->op_mod;
	else if (strcmp(k, "st") == 0)
		*v = e->status;
	else if (strcmp(k, "off") == 0)
		*v = e->db_offset;
	else if (strcmp(k, "page") == 0)
		*v = e->uar_page;
	else if (k[0] == 'f' && k[1] >= '0' && k[1] <= '3' && k[2] == '\0')
		*v = e->field[k[1] - '0'];
	else
		return false;
	return true;
}

static bool
t_tr_match1(const struct t_tr_step *s, const struct hermon_model_trace_ev *e)
{
	char buf[16];
	unsigned int i;
	uint64_t v;

	if (strcmp(s->name, t_tr_name(e, buf, sizeof(buf))) != 0)
		return false;
	for (i = 0; i < s->nkeys; i++)
		if (!t_tr_key(e, s->key[i], &v) || v != s->val[i])
			return false;
	return true;
}

static void
t_tr_print(FILE *f, const struct hermon_model_trace_ev *e)
{
	char buf[16];

	if (e->kind == HERMON_MODEL_TRACE_DB)
		fprintf(f, "DB page %u off=0x%x value 0x%08x 0x%08x\n", e->uar_page,
			e->db_offset, e->db_value, e->db_value2);
	else if (e->kind == HERMON_MODEL_TRACE_RESET)
		fprintf(f, "RESET\n");
	else
		fprintf(f, "%-14s mod=0x%x opm=%u st=%u f0=%u f1=%u f2=%u f3=%u\n",
			t_tr_name(e, buf, sizeof(buf)), e->in_mod, e->op_mod,
			e->status, e->field[0], e->field[1], e->field[2], e->field[3]);
}

/* Parse @path into @steps (at most @max); returns the count or -1. */
static int
t_tr_load(const char *path, struct t_tr_step *steps, unsigned int max)
{
	char line[256];
	unsigned int n = 0, ln = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		struct t_tr_step *s = &steps[n];
		char *p = strchr(line, '#'), *tok, *save = NULL;

		ln++;
		if (p != NULL)
			*p = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (tok == NULL)
			continue;
		if (n == max) {
			fclose(f);
			return -1;
		}
		memset(s, 0, sizeof(*s));
		s->line = ln;
		if (tok[0] == '-') {
			s->absent = true;
			tok++;
		}
		snprintf(s->name, sizeof(s->name), "%s", tok);
		while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
			char *eq = strchr(tok, '=');

			if (eq == NULL && strlen(tok) == 1 && strchr("+*?", tok[0])) {
				s->rep = tok[0];
				continue;
			}
			if (eq == NULL || s->nkeys == T_TR_MAX_KEYS) {
				fprintf(stderr, "%s:%u: bad token %s\n", path, ln, tok);
				fclose(f);
				return -1;
			}
			*eq = '\0';
			snprintf(s->key[s->nkeys], sizeof(s->key[0]), "%s", tok);
			s->val[s->nkeys++] = strtoull(eq + 1, NULL, 0);
		}
		n++;
	}
	fclose(f);
	return (int)n;
}

/*
 * Match @ev[0..n) against the steps in order; 0 on success, otherwise
 * prints the first divergence and returns -1.
 */
static int
t_tr_match(const struct t_tr_step *steps, unsigned int ns,
	   const struct hermon_model_trace_ev *ev, unsigned int n)
{
	unsigned int i = 0, k, j;

	for (k = 0; k < ns; k++) {
		const struct t_tr_step *s = &steps[k];
		unsigned int got = 0;

		if (s->absent) {
			for (j = 0; j < n; j++)
				if (t_tr_match1(s, &ev[j])) {
					fprintf(stderr, "line %u: the PMD issues %s, which it "
						"should not (event %u)\n", s->line, s->name, j);
					return -1;
				}
			continue;
		}
		while (i < n && t_tr_match1(s, &ev[i])) {
			i++;
			got++;
			if (s->rep == 0 || s->rep == '?')
				break;
		}
		if (got == 0 && (s->rep == 0 || s->rep == '+')) {
			fprintf(stderr, "line %u: expected %s, trace event %u is: ",
				s->line, s->name, i);
			if (i < n)
				t_tr_print(stderr, &ev[i]);
			else
				fprintf(stderr, "(end of trace)\n");
			return -1;
		}
	}
	if (i != n) {
		fprintf(stderr, "trace goes on past the expected sequence at event %u: ", i);
		t_tr_print(stderr, &ev[i]);
		return -1;
	}
	return 0;
}

#endif /* T_HERMON_TRACE_MATCH_H */

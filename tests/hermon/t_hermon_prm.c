/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * PRM layout test: every field of every structure in the reference JSON
 * against our declarations (offset and width), sizes, and FILL/GET round
 * trips on the buffers.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hermon_prm.h"
#include "t_prm_json.h"

/* Find @dotted in @t by walking nested descriptors; offsets are absolute. */
static const struct hermon_prm_field *
find_field(const struct hermon_prm_type *t, const char *dotted, uint32_t *abs_off)
{
	const char *dot = strchr(dotted, '.');
	size_t len = dot != NULL ? (size_t)(dot - dotted) : strlen(dotted);
	uint32_t i;

	for (i = 0; i < t->nb_fields; i++) {
		const struct hermon_prm_field *f = &t->fields[i];

		if (strlen(f->name) != len || strncmp(f->name, dotted, len) != 0)
			continue;
		*abs_off += f->bit_offset;
		if (dot == NULL)
			return f;
		if (f->nested == NULL)
			return NULL;
		return find_field(f->nested, dot + 1, abs_off);
	}
	return NULL;
}

/* Number of scalar fields of @t once nested structures are flattened. */
static uint32_t
count_leaves(const struct hermon_prm_type *t)
{
	uint32_t i, n = 0;

	for (i = 0; i < t->nb_fields; i++)
		n += t->fields[i].nested != NULL ? count_leaves(t->fields[i].nested) : 1;
	return n;
}

static void
test_layout_vs_json(void **state)
{
	const struct t_prm_json_field *j;
	unsigned int checked = 0, types = 0;

	(void)state;
	for (j = t_prm_json_fields; j->type != NULL; j++) {
		const struct hermon_prm_type *t = hermon_prm_type_find(j->type);
		const struct hermon_prm_field *f;
		uint32_t off = 0;

		if (t == NULL)
			fail_msg("structure %s is not declared", j->type);
		f = find_field(t, j->field, &off);
		if (f == NULL)
			fail_msg("%s.%s is not declared", j->type, j->field);
		if (off != j->bit_offset || f->bit_width != j->bit_width)
			fail_msg("%s.%s: ours at %u width %u, PRM at %u width %u",
				 j->type, j->field, off, f->bit_width,
				 j->bit_offset, j->bit_width);
		checked++;
	}
	for (j = t_prm_json_sizes; j->type != NULL; j++) {
		const struct hermon_prm_type *t = hermon_prm_type_find(j->type);
		unsigned int n = 0;
		const struct t_prm_json_field *k;

		assert_non_null(t);
		assert_int_equal(t->bit_size, j->bit_width);
		/* nothing declared beyond what the PRM lists */
		for (k = t_prm_json_fields; k->type != NULL; k++)
			n += strcmp(k->type, j->type) == 0;
		assert_int_equal(count_leaves(t), n);
		types++;
	}
	printf("compared %u fields of %u structures with the PRM\n", checked, types);
	assert_true(types >= 44);
}

static void
test_offsetof_matches(void **state)
{
	(void)state;
	/* the compile-time offsets FILL/GET use, spot-checked against the PRM */
	assert_int_equal(HERMON_PB_OFF(hca_command_register, go), 215);
	assert_int_equal(HERMON_PB_OFF(hca_command_register, status), 216);
	assert_int_equal(HERMON_PB_OFF(init_hca, tpt_parameters.log_dmpt_sz), 1984);
	assert_int_equal(HERMON_PB_OFF(qp_ee_state_transitions,
				       qpc_eec_data.primary_address_path.sched_queue),
			 64 + 472);
	assert_int_equal(HERMON_PB_WIDTH(srq_context, mtt_base_addr_l), 29);
	assert_int_equal(HERMON_PRM_SIZE(queue_pair_ee_context_entry), 248);
	assert_int_equal(HERMON_PRM_SIZE(completion_queue_entry), 32);
	assert_int_equal(HERMON_PRM_SIZE(init_hca), 512);
}

static void
test_fill_get(void **state)
{
	struct hermon_prm_hca_command_register hcr;
	struct hermon_prm_srq_context srq;
	struct hermon_prm_init_hca ih;
	struct hermon_prm_qpcbaseaddr *q;
	const uint8_t *b = (const uint8_t *)hcr.dw;

	(void)state;
	memset(&hcr, 0, sizeof(hcr));
	HERMON_FILL(&hcr, hca_command_register, go, 1);
	HERMON_FILL(&hcr, hca_command_register, opcode, 0xfff);
	HERMON_FILL(&hcr, hca_command_register, status, 0x5a);
	/* go is bit 23 of the big-endian dword 6: byte 0x19 bit 7 */
	assert_int_equal(b[0x18], 0x5a);
	assert_int_equal(b[0x19], 0x80);
	assert_int_equal(b[0x1a], 0x0f);
	assert_int_equal(b[0x1b], 0xff);
	assert_int_equal(HERMON_GET(&hcr, hca_command_register, opcode), 0xfff);
	assert_int_equal(HERMON_GET(&hcr, hca_command_register, t), 0);
	/* values wider than the field are cut to it, neighbours untouched */
	HERMON_FILL(&hcr, hca_command_register, opcode_modifier, 0x1f);
	assert_int_equal(HERMON_GET(&hcr, hca_command_register, opcode_modifier), 0xf);
	assert_int_equal(HERMON_GET(&hcr, hca_command_register, opcode), 0xfff);
	assert_int_equal(HERMON_GET(&hcr, hca_command_register, go), 1);

	memset(&srq, 0, sizeof(srq));
	HERMON_FILL(&srq, srq_context, srqn, 0xabcdef);
	HERMON_FILL(&srq, srq_context, log_srq_size, 9);
	HERMON_FILL(&srq, srq_context, state, 0xf);
	assert_int_equal(rte_be_to_cpu_32(srq.dw[0]), 0xf9abcdef);
	HERMON_FILL64(&srq, srq_context, mtt_base_addr_h, mtt_base_addr_l,
		      0x12345678f8ull);
	assert_int_equal(HERMON_GET64(&srq, srq_context, mtt_base_addr_h,
				      mtt_base_addr_l), 0x12345678f8ull);
	HERMON_FILL64(&srq, srq_context, db_record_addr_h, db_record_addr_l,
		      0xfedcba9876543210ull);
	assert_true(HERMON_GET64(&srq, srq_context, db_record_addr_h,
				 db_record_addr_l) == 0xfedcba9876543210ull);

	memset(&ih, 0, sizeof(ih));
	q = HERMON_NESTED(&ih, init_hca, qpc_eec_cqc_eqc_rdb_parameters, qpcbaseaddr);
	HERMON_FILL64(q, qpcbaseaddr, qpc_base_addr_h, qpc_base_addr_l,
		      0x100000000ull + 0x40000);
	HERMON_FILL(q, qpcbaseaddr, log_num_of_qp, 17);
	/* qpc_base_addr_l shares its dword with log_num_of_qp (INIT_HCA 0x34) */
	assert_int_equal(rte_be_to_cpu_32(ih.dw[0x34 / 4]), 0x40000 | 17);
	assert_int_equal(rte_be_to_cpu_32(ih.dw[0x30 / 4]), 1);
	assert_int_equal(HERMON_GET(&ih, init_hca,
				    qpc_eec_cqc_eqc_rdb_parameters.log_num_of_qp), 17);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_vs_json),
		cmocka_unit_test(test_offsetof_matches),
		cmocka_unit_test(test_fill_get),
	};

	/* the reference JSON ships in tests/data/reference: never skip */
	if (t_prm_json_fields[0].type == NULL) {
		printf("FAIL: hermon-prm-layouts.json not found or empty\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of the adversarial search (hetsched/adversary.h): refusals with their
 * messages; an exact case (one device: every policy is optimal, the ratio
 * 1); and on real searches the invariants: the worst workload stays in the
 * ranges asked for, its ratio is what mapping it again and solving it again
 * give, also once written as YAML and read back, the ratio only grows in
 * the progress reports, and a seed gives one search. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hetsched/adversary.h"
#include "hetsched/hetsched.h"

static void ok(int rc, const hs_error *err)
{
    if (rc != HS_OK)
        fail_msg("unexpected error %d: %s", rc, err->msg);
}

static void refused(const hs_adversary_options *o, const char *msg)
{
    hs_adversary_result r;
    hs_error err = {0};
    assert_int_equal(hs_adversary_search(o, &r, NULL, NULL, &err), HS_EUSAGE);
    assert_string_equal(err.msg, msg);
    assert_null(r.worst);
}

static void refusals(void **state)
{
    hs_adversary_options o;
    (void)state;
    hs_adversary_options_init(&o);
    refused(&o, "unknown policy '(none)' (see hetsched map -a help)");
    o.policy = "nope";
    refused(&o, "unknown policy 'nope' (see hetsched map -a help)");
    o.policy = "heft";
    o.against = "nix";
    refused(&o, "unknown policy 'nix' to compare with (see hetsched map -a help)");
    o.against = NULL;
    o.iterations = 0;
    refused(&o, "iterations must be at least 1, not 0");
    o.iterations = 10;
    o.min_tasks = 4;
    o.max_tasks = 3;
    refused(&o, "tasks must be a range within 1..12, not 4-3");
    o.max_tasks = 13;
    refused(&o, "tasks must be a range within 1..12, not 4-13");
    o.max_tasks = 5;
    o.min_devices = 0;
    refused(&o, "devices must be a range within 1..4, not 0-3");
    o.min_devices = 2;
    o.time_limit_s = -1;
    refused(&o, "time limits must be numbers of seconds >= 0");
}

/* One device (cpu0): every policy runs the tasks one after the other, which
 * is what the optimum does, so every step scores 1 and so does the worst;
 * the workload has one device and 1 to 3 tasks. */
static void one_device_is_optimal(void **state)
{
    hs_adversary_options o;
    hs_adversary_result r;
    hs_error err = {0};
    (void)state;
    hs_adversary_options_init(&o);
    o.policy = "heft";
    o.iterations = 30;
    o.min_devices = o.max_devices = 1;
    o.min_tasks = 1;
    o.max_tasks = 3;
    ok(hs_adversary_search(&o, &r, NULL, NULL, &err), &err);
    assert_float_equal(r.ratio, 1, 1e-9);
    assert_int_equal(r.worst->platform.ndevices, 1);
    assert_true(r.worst->graph.ntasks >= 1 && r.worst->graph.ntasks <= 3);
    assert_int_equal(r.iterations, 30);
    assert_true(r.proven);
    hs_adversary_result_free(&r);
    /* a policy against itself: 1 exactly, whatever the workload */
    o.min_devices = 2;
    o.max_devices = 3;
    o.against = "heft";
    ok(hs_adversary_search(&o, &r, NULL, NULL, &err), &err);
    assert_float_equal(r.ratio, 1, 0);
    hs_adversary_result_free(&r);
}

typedef struct seen {
    double last;
    int calls, rising;
} seen;

static void note(void *ctx, const hs_adversary_result *r)
{
    seen *s = ctx;
    s->rising &= r->ratio > s->last;
    s->last = r->ratio;
    s->calls++;
}

/* The worst workload's makespans, found again: mapping it with the policy
 * and solving its MILP. */
static void same_ratio(hs_workload *w, const char *policy, const hs_adversary_result *r)
{
    hs_schedule *s = NULL;
    hs_milp_options mo;
    hs_milp_result res;
    hs_error err = {0};
    ok(hs_map(w, policy, NULL, &s, NULL, &err), &err);
    assert_float_equal(s->makespan_us, r->policy_us, 1e-9 * r->policy_us);
    hs_schedule_free(s);
    hs_milp_options_init(&mo);
    mo.progress = 0;
    ok(hs_milp_solve(w, &mo, &res, &err), &err);
    assert_int_equal(res.status, HS_MILP_OPTIMAL);
    assert_float_equal(res.makespan_us, r->against_us, 1e-9 * r->against_us);
    hs_milp_result_free(&res);
}

static void searches(void **state)
{
    static const char *const policies[] = {"heft", "peft", "dmda", "best"};
    (void)state;
    for (int i = 0; i < 4; i++) {
        hs_adversary_options o;
        hs_adversary_result r, again;
        hs_workload *back = NULL;
        seen s = {.rising = 1};
        char path[64] = "/tmp/hs_adversary_XXXXXX";
        hs_error err = {0};
        FILE *f;
        int fd;
        hs_adversary_options_init(&o);
        o.policy = policies[i];
        o.seed = (unsigned long)i;
        o.iterations = 40;
        o.min_tasks = 2;
        o.max_tasks = 6;
        ok(hs_adversary_search(&o, &r, note, &s, &err), &err);
        /* the optimum is a lower bound of every whole-task schedule */
        assert_true(r.ratio >= 1 - 1e-9);
        assert_true(r.proven);
        assert_true(s.rising);
        if (s.calls)
            assert_float_equal(s.last, r.ratio, 0);
        assert_true(r.worst->graph.ntasks >= 2 && r.worst->graph.ntasks <= 6);
        assert_true(r.worst->platform.ndevices >= 2 && r.worst->platform.ndevices <= 3);
        assert_float_equal(r.ratio, r.policy_us / r.against_us, 0);
        same_ratio(r.worst, o.policy, &r);
        /* written and read back: the same numbers, the same ratio */
        assert_true((fd = mkstemp(path)) >= 0);
        assert_non_null(f = fdopen(fd, "w"));
        ok(hs_workload_write_yaml(r.worst, f, &err), &err);
        fclose(f);
        ok(hs_workload_load_file(path, &back, &err), &err);
        unlink(path);
        same_ratio(back, o.policy, &r);
        hs_workload_free(back);
        /* the same seed, the same search */
        ok(hs_adversary_search(&o, &again, NULL, NULL, &err), &err);
        assert_float_equal(again.ratio, r.ratio, 0);
        assert_int_equal(again.accepted, r.accepted);
        hs_adversary_result_free(&again);
        hs_adversary_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals),
        cmocka_unit_test(one_device_is_optimal),
        cmocka_unit_test(searches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

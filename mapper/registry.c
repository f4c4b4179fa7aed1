/* hetsched — the policy registry and hs_map (include/hetsched/mapper.h,
 * include/hetsched/policy.h).
 *
 * Each policy is one file of mapper/ ending in `const hs_policy
 * hs__policy_NAME = {...}`; adding one means one extern line and one entry
 * below, in the order `hetsched map -a help` lists them.  A program adds
 * its own with hs_policy_register. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "exec/engine.h"
#include "mapper/policy.h"
#include "mapper/split_graph.h"

extern const hs_policy hs__policy_h_ratio;
extern const hs_policy hs__policy_d_rank;
extern const hs_policy hs__policy_ad_part;
extern const hs_policy hs__policy_heft;
extern const hs_policy hs__policy_peft;
extern const hs_policy hs__policy_heft_wm;
extern const hs_policy hs__policy_hoft;
extern const hs_policy hs__policy_hoft_wm;
extern const hs_policy hs__policy_cpop;
extern const hs_policy hs__policy_lookahead;
extern const hs_policy hs__policy_heteroprio;
extern const hs_policy hs__policy_dmda;
extern const hs_policy hs__policy_dmdar;
extern const hs_policy hs__policy_eager;
extern const hs_policy hs__policy_cpu_only;
extern const hs_policy hs__policy_app_level;
extern const hs_policy hs__policy_random;
extern const hs_policy hs__policy_best;

static const hs_policy *const builtin[] = {
    &hs__policy_h_ratio,
    &hs__policy_d_rank,
    &hs__policy_ad_part,
    &hs__policy_heft,
    &hs__policy_peft,
    &hs__policy_heft_wm,
    &hs__policy_hoft,
    &hs__policy_hoft_wm,
    &hs__policy_cpop,
    &hs__policy_lookahead,
    &hs__policy_heteroprio,
    &hs__policy_dmda,
    &hs__policy_dmdar,
    &hs__policy_eager,
    &hs__policy_cpu_only,
    &hs__policy_app_level,
    &hs__policy_random,
    &hs__policy_best,
    NULL,
};

#define NBUILTIN (sizeof builtin / sizeof builtin[0] - 1)

/* The library's policies, then those a program registered (NULL-terminated);
 * registrations append under the lock. */
static const hs_policy *policies[NBUILTIN + HS_MAX_USER_POLICIES + 1];
static size_t npolicies;
static pthread_once_t checked = PTHREAD_ONCE_INIT;
static pthread_mutex_t registering = PTHREAD_MUTEX_INITIALIZER;

/* Two policies with one name would make -a ambiguous: that is a build
 * mistake, stopped at the first use of the registry. */
static void check_unique(void)
{
    for (size_t i = 0; builtin[i]; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(builtin[i]->name, builtin[j]->name) == 0) {
                fprintf(stderr, "hetsched: policy '%s' is registered twice\n",
                        builtin[i]->name);
                abort();
            }
        policies[i] = builtin[i];
    }
    npolicies = NBUILTIN;
}

const hs_policy *const *hs_policy_list(void)
{
    pthread_once(&checked, check_unique);
    return policies;
}

int hs_policy_register(const hs_policy *p, hs_error *err)
{
    int rc = HS_OK;
    if (!p || !p->name || !p->description || !p->init || !p->ready || !p->pick)
        return hs_error_set(err, HS_EUSAGE, "a policy needs a name, a description, init, "
                            "ready and pick");
    if (!p->name[0] || strchr(p->name, '+'))
        return hs_error_set(err, HS_EUSAGE, "policy name '%s': not empty, and no '+' (the "
                            "name of a split policy)", p->name);
    pthread_mutex_lock(&registering);
    if (hs_policy_find(p->name))
        rc = hs_error_set(err, HS_EUSAGE, "policy '%s' is registered already", p->name);
    else if (npolicies == NBUILTIN + HS_MAX_USER_POLICIES)
        rc = hs_error_set(err, HS_EUSAGE, "policy '%s': more than %d registered policies",
                          p->name, HS_MAX_USER_POLICIES);
    else
        policies[npolicies++] = p;
    pthread_mutex_unlock(&registering);
    return rc;
}

const hs_policy *hs_policy_find(const char *name)
{
    const hs_policy *const *p = hs_policy_list();
    if (!name)
        return NULL;
    for (; *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

const char *hs_policy_name(const hs_policy *p)
{
    return p->name;
}

const char *hs_policy_description(const hs_policy *p)
{
    return p->description;
}

unsigned hs_policy_options(const hs_policy *p)
{
    return p->options;
}

int hs__policy_resolve(const char *name, const hs_map_options *opt, const hs_policy **out,
                       hs_error *err)
{
    const hs_policy *p = hs_policy_find(name);
    int rc;
    if (opt && opt->schedule) {
        if ((rc = hs__given_check(name, opt, err)) == HS_OK)
            *out = &hs__policy_given;
        return rc;
    }
    if (!p)
        return hs_error_set(err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)",
                            name ? name : "(null)");
    if (opt && opt->split && !(p = hs_split_graph_wrap(opt->split, p)))
        return hs_error_set(err, HS_EINPUT, "--split: policy '%s' splits kernels itself",
                            name);
    *out = p;
    return HS_OK;
}

int hs_map_check(const char *policy, int given, const hs_map_options *opt, hs_error *err)
{
    static const hs_map_options defaults = {0};
    const hs_policy *p;
    opt = opt ? opt : &defaults;
    if (given || opt->schedule)
        return hs__given_check(policy, opt, err);
    return hs__policy_resolve(policy, opt, &p, err);
}

int hs__given_check(const char *name, const hs_map_options *opt, hs_error *err)
{
    if (name)
        return hs_error_set(err, HS_EUSAGE, "--schedule runs the schedule it is given: no "
                            "policy (-a %s) with it", name);
    if (opt->split || opt->live_split)
        return hs_error_set(err, HS_EUSAGE, "--split does not apply to --schedule: the "
                            "schedule places whole tasks");
    return HS_OK;
}

int hs_map(hs_workload *w, const char *policy, const hs_map_options *opt, hs_schedule **out,
           hs_map_stats *stats, hs_error *err)
{
    const hs_policy *p;
    hs_backend sim = {.ops = &hs_backend_sim};
    int rc = hs__policy_resolve(policy, opt, &p, err);
    return rc ? rc : hs_engine_run(w, p, opt, &sim, out, stats, err);
}

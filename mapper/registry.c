/* hetsched — the policy registry and hs_map (include/hetsched/mapper.h).
 *
 * Each policy is one file of mapper/ ending in `const hs_policy
 * hs__policy_NAME = {...}`; adding one means one extern line and one entry
 * below, in the order `hetsched map -a help` lists them. */
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

static const hs_policy *const policies[] = {
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

static pthread_once_t checked = PTHREAD_ONCE_INIT;

/* Two policies with one name would make -a ambiguous: that is a build
 * mistake, stopped at the first use of the registry. */
static void check_unique(void)
{
    for (size_t i = 0; policies[i]; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(policies[i]->name, policies[j]->name) == 0) {
                fprintf(stderr, "hetsched: policy '%s' is registered twice\n",
                        policies[i]->name);
                abort();
            }
}

const hs_policy *const *hs_policy_list(void)
{
    pthread_once(&checked, check_unique);
    return policies;
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
    if (!p)
        return hs_error_set(err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)",
                            name ? name : "(null)");
    if (opt && opt->split && !(p = hs_split_graph_wrap(opt->split, p)))
        return hs_error_set(err, HS_EINPUT, "--split: policy '%s' splits kernels itself",
                            name);
    *out = p;
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

/* hetsched — graph-level splitting: a kernel marked `splittable: true` with
 * `items: N` runs as one step of the graph split across the devices by a
 * chunk splitter (mapper/split.h), under any policy (`map|run|compare
 * --split SPLITTER`).
 *
 * How: a policy transform (mapper/policy.h) replaces each splittable task by
 * the parts the splitter gives it.  The splitter runs in the chunk
 * simulator (exec/split_sim.h) over the platform's devices, each computing
 * N / C[t][d] items per µs (C the task's cost on d), from host memory or
 * behind the host link of its memory (bandwidth and latency of the link
 * host -> memory), moving per item its share of the task's input and output
 * bytes and of its edges' bytes (as if its neighbours ran on the host),
 * with no fixed cost per chunk.  A kernel of more than 2^20 items is
 * simulated at that many items, each standing for N / 2^20 of them.
 * Each device that got items gets one part, numbered in device order, with
 * fraction = its share of the items, costing fraction x C[t][e] on every
 * device e (the linear part cost of the model, DESIGN §1); an edge u -> v
 * becomes one edge from each part of u to each part of v carrying bytes x
 * f_u x f_v, as in ad-part.  A task whose cost is 0 somewhere stays whole.
 *
 * The devices: all the platform's, but for a policy that runs every task
 * on a CPU device (HS_POLICY_CPUS_ONLY: cpu-only), only its CPU devices.
 *
 * Pinning: each part runs on the device that got its items.  The planning
 * policies (heft, peft, heft-wm, hoft, cpop, lookahead: mapper/rank.h,
 * hs__plan_list, and heteroprio) place each part on its device in their
 * plans (hs__split_graph_pins), so what they plan is what runs.  Any policy is
 * wrapped: it sees every task as usual, and whatever it hands out goes
 * through a queue per device, served first: a part to its own device's
 * queue, anything else to the queue of the device it was handed out for.
 * When a device with an empty queue is asked, the policy is asked for it
 * and for every other idle device not yet asked in this batch of events,
 * so that a part the policy queues on another device (h-ratio, dmda)
 * reaches its own device before the engine asks that one.  One exception
 * keeps the run going: a part handed out for a device that has already
 * declined in this batch, while the asking device has nothing else, runs
 * on the asking device.  A policy with its own transform (ad-part) cannot
 * be wrapped.
 */
#ifndef HS_MAPPER_SPLIT_GRAPH_H
#define HS_MAPPER_SPLIT_GRAPH_H

#include "hetsched/mapper.h"
#include "mapper/split.h"

typedef struct hs_split_graph hs_split_graph;

/* The splitter named `splitter` with options opt (NULL: defaults), for
 * hs_map_options.split.  HS_EINPUT naming the splitters for an unknown
 * name. */
int hs_split_graph_new(const char *splitter, const hs_split_options *opt, hs_split_graph **out,
                       hs_error *err);
void hs_split_graph_free(hs_split_graph *sg);

/* The policy that runs `inner` with the splittable kernels split by sg (its
 * name: INNER+SPLITTER), valid until sg is freed or wraps another policy;
 * give the engine opt with opt.split = sg.  NULL when inner has a
 * transform of its own (ad-part). */
const hs_policy *hs_split_graph_wrap(hs_split_graph *sg, const hs_policy *inner);

/* The device each task of g is pinned to (-1: a whole task), when opt
 * splits by graph (opt->split) and g is the graph of its last transform;
 * NULL otherwise (opt NULL, no split, nothing split). */
const int *hs__split_graph_pins(const hs_map_options *opt, const hs_graph *g);

#endif

"""hetsched from Python: load a workload, map it with any policy, solve the
MILP for the optimum, run it for real, compare the policies, and read
schedules as Python objects.

A thin layer over the C library libhetsched (ctypes, nothing beyond the
standard library).  The library is found where `meson install` put it, or
through LD_LIBRARY_PATH (a build tree: LD_LIBRARY_PATH=build).

    >>> import hetsched
    >>> w = hetsched.load("workloads/case-study.yaml")
    >>> s = hetsched.map(w, "heft")
    >>> round(s.makespan_us, 3)
    6390.208

Errors from the library raise hetsched.Error, whose message is the
library's one line (FILE:LINE:COL where there is a file).
"""

import ctypes
import json
import os
import tempfile

__all__ = ["Error", "Workload", "Schedule", "RunResult", "load", "policies", "map",
           "optimal", "run", "compare"]


def _open_library():
    names = []
    try:
        from ._libdir import LIBDIR  # written by `meson install`
        names.append(os.path.join(LIBDIR, "libhetsched.so"))
    except ImportError:
        pass
    names.append("libhetsched.so")  # LD_LIBRARY_PATH, then the system's paths
    tried = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("hetsched: libhetsched.so not found (set LD_LIBRARY_PATH to the "
                      "directory that holds it, or `meson install` hetsched): "
                      + "; ".join(tried))


_lib = _open_library()

# ------------------------------------------------------------ C structures
# (include/hetsched/*.h; only the fields read or written here, in order)


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024),
                ("path", ctypes.c_char * 256)]


class _Schedule(ctypes.Structure):  # the leading fields of hs_schedule
    _fields_ = [("workload", ctypes.c_char_p), ("algorithm", ctypes.c_char_p),
                ("model", ctypes.c_char_p), ("backend", ctypes.c_char_p),
                ("makespan_us", ctypes.c_double)]


class _LoadOptions(ctypes.Structure):  # hs_load_options, every field
    _fields_ = [("cost_fn", ctypes.c_void_p), ("cost_ctx", ctypes.c_void_p),
                ("format", ctypes.c_char_p), ("platform", ctypes.c_void_p),
                ("speeds", ctypes.c_char_p), ("beta", ctypes.c_double),
                ("beta_seed", ctypes.c_ulong), ("suite", ctypes.c_int),
                ("link_fn", ctypes.c_void_p)]


class _MapOptions(ctypes.Structure):
    _fields_ = [("seed", ctypes.c_ulong), ("thr", ctypes.c_int),
                ("split_threshold_us", ctypes.c_double), ("perfmodel", ctypes.c_void_p),
                ("split", ctypes.c_void_p), ("executor_depth", ctypes.c_void_p),
                ("live_split", ctypes.c_void_p), ("live_split_options", ctypes.c_void_p),
                ("budget_ms", ctypes.c_double), ("schedule", ctypes.c_void_p),
                ("executor_estimates", ctypes.c_int)]


class _MapStats(ctypes.Structure):
    _fields_ = [("mapping_seconds", ctypes.c_double), ("busy_us_total", ctypes.c_double),
                ("events", ctypes.c_size_t), ("failed_devices", ctypes.c_int),
                ("rerun", ctypes.c_size_t), ("live_splits", ctypes.c_size_t),
                ("chunks", ctypes.c_size_t)]


class _MilpOptions(ctypes.Structure):
    _fields_ = [("formulation", ctypes.c_int), ("solver", ctypes.c_int),
                ("time_limit_s", ctypes.c_double), ("rel_gap", ctypes.c_double),
                ("verbose", ctypes.c_int), ("progress", ctypes.c_int),
                ("features", ctypes.c_uint), ("lp_file", ctypes.c_char_p),
                ("stop", ctypes.c_void_p)]


class _MilpResult(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("schedule", ctypes.POINTER(_Schedule)),
                ("makespan_us", ctypes.c_double), ("bound_us", ctypes.c_double),
                ("gap", ctypes.c_double), ("root_bound_us", ctypes.c_double),
                ("incumbent_us", ctypes.c_double), ("incumbent_from", ctypes.c_char * 32),
                ("rows", ctypes.c_int), ("cols", ctypes.c_int), ("binaries", ctypes.c_int),
                ("nodes", ctypes.c_double), ("solve_s", ctypes.c_double),
                ("interrupted", ctypes.c_int), ("not_built", ctypes.c_char * 256)]


class _RunOptions(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char_p), ("devices", ctypes.c_char_p),
                ("device_memory", ctypes.c_size_t), ("check", ctypes.c_int),
                ("seed", ctypes.c_ulong), ("thr", ctypes.c_int), ("perfmodel", ctypes.c_void_p),
                ("split", ctypes.c_char_p), ("split_planned", ctypes.c_int),
                ("split_options", ctypes.POINTER(ctypes.c_char_p)),
                ("fail_device", ctypes.c_char_p), ("fail_after", ctypes.c_size_t),
                ("throttle_device", ctypes.c_char_p), ("throttle", ctypes.c_double),
                ("predict", ctypes.c_int), ("schedule", ctypes.c_char_p)]


class _KernelRow(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char * 32), ("device", ctypes.c_int),
                ("tasks", ctypes.c_size_t), ("measured_us", ctypes.c_double),
                ("model_us", ctypes.c_double)]


class _DeviceStats(ctypes.Structure):
    _fields_ = [("busy_us", ctypes.c_double), ("tasks", ctypes.c_size_t),
                ("held_idle_us", ctypes.c_double), ("ready_idle_us", ctypes.c_double),
                ("behind_idle_us", ctypes.c_double), ("launch_idle_us", ctypes.c_double)]


class _RunResult(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char_p), ("schedule", ctypes.POINTER(_Schedule)),
                ("predicted", ctypes.POINTER(_Schedule)), ("stats", _MapStats),
                ("typed", ctypes.c_size_t), ("checked", ctypes.c_size_t),
                ("untyped", ctypes.c_size_t), ("check_us", ctypes.c_double),
                ("setup_us", ctypes.c_double), ("inputs_us", ctypes.c_double),
                ("buffers_us", ctypes.c_double), ("warmup_us", ctypes.c_double),
                ("teardown_us", ctypes.c_double), ("threads", ctypes.c_int), ("processors", ctypes.c_int),
                ("nmemories", ctypes.c_int), ("link_bytes", ctypes.POINTER(ctypes.c_double)),
                ("link_us", ctypes.POINTER(ctypes.c_double)),
                ("link_copies", ctypes.POINTER(ctypes.c_size_t)),
                ("prefetched", ctypes.c_size_t), ("evictions", ctypes.c_size_t),
                ("writebacks", ctypes.c_size_t), ("pool_hits", ctypes.c_size_t),
                ("pool_misses", ctypes.c_size_t), ("pool_reserved", ctypes.c_size_t),
                ("kernels", ctypes.POINTER(_KernelRow)), ("nkernels", ctypes.c_size_t),
                ("ndevices", ctypes.c_int), ("overhead_us", ctypes.POINTER(ctypes.c_double)),
                ("noutputs", ctypes.c_size_t), ("output_bytes", ctypes.c_double),
                ("outputs_digest", ctypes.c_ulonglong), ("ranks", ctypes.c_int),
                ("messages", ctypes.c_size_t), ("message_bytes", ctypes.c_double),
                ("devices", ctypes.POINTER(_DeviceStats)),
                ("predicted_devices", ctypes.POINTER(_DeviceStats))]


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_P = ctypes.c_void_p
_S = ctypes.POINTER(_Schedule)
_E = ctypes.POINTER(_Error)
_load_file_opts = _fn("hs_workload_load_file_opts", ctypes.c_int, ctypes.c_char_p,
                      ctypes.POINTER(_LoadOptions), ctypes.POINTER(_P), _E)
_load_buffer_opts = _fn("hs_workload_load_buffer_opts", ctypes.c_int, ctypes.c_char_p,
                        ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_LoadOptions),
                        ctypes.POINTER(_P), _E)
_workload_free = _fn("hs_workload_free", None, _P)
_perfmodel_load = _fn("hs_perfmodel_load", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_P), _E)
_perfmodel_free = _fn("hs_perfmodel_free", None, _P)
_perfmodel_cost_fn = ctypes.cast(_lib.hs_perfmodel_cost_fn, ctypes.c_void_p)
_perfmodel_link_fn = ctypes.cast(_lib.hs_perfmodel_link_fn, ctypes.c_void_p)
_policy_list = _fn("hs_policy_list", ctypes.POINTER(_P))
_policy_name = _fn("hs_policy_name", ctypes.c_char_p, _P)
_policy_description = _fn("hs_policy_description", ctypes.c_char_p, _P)
_map = _fn("hs_map", ctypes.c_int, _P, ctypes.c_char_p, ctypes.POINTER(_MapOptions),
           ctypes.POINTER(_S), ctypes.POINTER(_MapStats), _E)
_schedule_free = _fn("hs_schedule_free", None, _S)
_schedule_read_given = _fn("hs_schedule_read_given", ctypes.c_int, _P, ctypes.c_char_p,
                           ctypes.POINTER(_S), _E)
_schedule_write_json = _fn("hs_schedule_write_json", ctypes.c_int, _P, _S, ctypes.c_char_p, _E)
_schedule_validate = _fn("hs_schedule_validate", ctypes.c_int, _P, _S, _E)
_lower_bound = _fn("hs_lower_bound_us", ctypes.c_double, _P)
_executor_depths = _fn("hs_run_executor_depths", ctypes.c_int, _P, ctypes.POINTER(ctypes.c_int),
                       _E)
_MAX_DEVICES = 512  # HS_MAX_DEVICES
_milp_options_init = _fn("hs_milp_options_init", None, ctypes.POINTER(_MilpOptions))
_milp_solve = _fn("hs_milp_solve", ctypes.c_int, _P, ctypes.POINTER(_MilpOptions),
                  ctypes.POINTER(_MilpResult), _E)
_milp_result_free = _fn("hs_milp_result_free", None, ctypes.POINTER(_MilpResult))
_milp_status_name = _fn("hs_milp_status_name", ctypes.c_char_p, ctypes.c_int)
_run = _fn("hs_run", ctypes.c_int, _P, ctypes.c_char_p, ctypes.POINTER(_RunOptions),
           ctypes.POINTER(_RunResult), _E)
_run_result_free = _fn("hs_run_result_free", None, ctypes.POINTER(_RunResult))


class Error(Exception):
    """An error the library reported: .code is its HS_E* value (negative),
    the message its one line."""

    def __init__(self, err):
        super().__init__(err.msg.decode("utf-8", "replace"))
        self.code = err.code


_EINPUT = -1  # HS_EINPUT of include/hetsched/error.h


def _check(rc, err):
    if rc != 0:
        raise Error(err)


def _take(result, field):
    """The schedule pointer result.field, which the caller owns from now on
    (the field is left NULL, so that freeing result leaves it alone)."""
    p = ctypes.cast(getattr(result, field), _S)  # a pointer of its own, not a view
    setattr(result, field, None)
    return p


def _bytes(s):
    return None if s is None else os.fsencode(s)


# ----------------------------------------------------------------- objects


class _Model:
    """A performance model (JSON, as `hetsched calibrate --out-model`
    writes it), kept alive by every workload whose costs it gave."""

    def __init__(self, path):
        self._ptr = _P()
        self.path = os.fspath(path)
        err = _Error()
        _check(_perfmodel_load(_bytes(path), ctypes.byref(self._ptr), ctypes.byref(err)), err)

    def __del__(self):
        if getattr(self, "_ptr", None):
            _perfmodel_free(self._ptr)
            self._ptr = None


class Workload:
    """A finalized workload (the YAML of DESIGN.md §3), made by load()."""

    def __init__(self, ptr, path, text, model=None):
        self._ptr = ptr
        self.path = path  # the file it was loaded from, or None
        self._text = text  # the dict it was made from, as JSON, or None
        self.model = model  # the _Model its typed kernels' costs came from, or None

    def __del__(self):
        if getattr(self, "_ptr", None):
            _workload_free(self._ptr)
            self._ptr = None

    def lower_bound_us(self):
        """A lower bound on the makespan of every whole-task schedule, in µs
        (the cheap bound `hetsched map` prints)."""
        return _lower_bound(self._ptr)

    def __repr__(self):
        return "<hetsched.Workload %s>" % (self.path,)


class Schedule:
    """Where and when each task ran (DESIGN.md §4).

    .makespan_us   the makespan in µs
    .algorithm     the policy (or "optimal") that made it
    .model         "delay", "executor" or "measured"
    .tasks         one dict per placement: id, device, start_us, end_us,
                   fraction (the schedule's JSON, as Python objects)
    .transfers     one dict per transfer: from_task, to_task (None for host
                   memory), from_device, to_device, bytes, start_us, end_us
    """

    def __init__(self, ptr, workload):
        self._ptr = ptr
        self._workload = workload  # the schedule refers to its tasks
        self._json = None
        s = ptr.contents
        self.makespan_us = s.makespan_us
        self.algorithm = s.algorithm.decode() if s.algorithm else None
        self.model = s.model.decode() if s.model else "delay"

    def __del__(self):
        if getattr(self, "_ptr", None):
            _schedule_free(self._ptr)
            self._ptr = None

    def _as_json(self):
        if self._json is None:
            fd, path = tempfile.mkstemp(prefix="hetsched-", suffix=".json")
            os.close(fd)
            try:
                self.write_json(path)
                with open(path, encoding="utf-8") as f:
                    self._json = json.load(f)
            finally:
                os.unlink(path)
        return self._json

    @property
    def tasks(self):
        return [dict(t) for t in self._as_json()["tasks"]]

    @property
    def transfers(self):
        return [dict(t) for t in self._as_json()["transfers"]]

    def write_json(self, path):
        """Writes the schedule as JSON to path (what --json writes)."""
        err = _Error()
        _check(_schedule_write_json(self._workload._ptr, self._ptr, _bytes(path),
                                    ctypes.byref(err)), err)

    def validate(self):
        """Checks the schedule against its workload and model (what `hetsched
        validate` does); raises hetsched.Error naming what fails."""
        err = _Error()
        _check(_schedule_validate(self._workload._ptr, self._ptr, ctypes.byref(err)), err)

    def __repr__(self):
        return "<hetsched.%s %s makespan %.3f us>" % (type(self).__name__, self.algorithm,
                                                      self.makespan_us)


class RunResult(Schedule):
    """The measured schedule of a run (model "measured"), and:

    .predicted   the same policy's Schedule in the simulator
    .backend     "cpu", "emu" or "cuda"
    .typed, .checked, .untyped   typed tasks run, those whose check passed,
                 cost-only tasks (which slept their cost)
    .links       {(from memory index, to memory index): (bytes, copies, us)}
                 for every link that moved data
    .stats       failed_devices, rerun, live_splits, chunks (a dict)
    .kernels     [{"kernel": type or "cost-only", "device": index, "tasks": n,
                 "measured_us": ..., "model_us": ...}]: kernel time against the
                 model, per type and device
    .overhead_us [µs per task from when a task could start, its device free
                 and its inputs there, to its start] per device, in platform
                 order, as measured (compare with the platform's overhead_us)
    .devices     per device, in platform order: busy_us, tasks,
                 held_idle_us (time it held a started task and ran none) and
                 ready_idle_us (the part of it in which the held task's
                 inputs were all there: the executor's own delay), and of
                 that behind_idle_us (behind a held task still waiting for
                 its inputs) and launch_idle_us (its worker launching)
    .predicted_devices  the same in the prediction (held_idle_us under the
                 executor's model: the copies the schedule itself waits for)
    .outputs_digest  FNV-1a (64 bits) of the run's outputs (typed tasks
                 without successors): equal digests, byte-exact outputs
    .setup_us    {"total", "inputs", "buffers", "warmup"}: µs before the run's
                 clock (the backend's memories and contexts, making the
                 inputs, the buffers made ahead, each kernel configuration run
                 once), and .teardown_us after it (workers stopped, buffers
                 freed): what a run costs beyond its makespan
    """


# --------------------------------------------------------------- functions


def load(source, model=None):
    """load(path) -> Workload: loads a workload file (YAML).
    load(dict) -> Workload: a workload given as Python dicts and lists, in
    the same shape as the YAML.  model: a performance-model file (JSON, as
    `hetsched calibrate --out-model` writes it) that gives the costs of
    typed kernels without cost_us, as the commands' --model does; map() and
    run() then use it too.  Raises hetsched.Error with FILE:LINE:COL for
    bad input."""
    m = None if model is None else model if isinstance(model, _Model) else _Model(model)
    opt = (_LoadOptions(cost_fn=_perfmodel_cost_fn, cost_ctx=m._ptr, link_fn=_perfmodel_link_fn)
           if m else _LoadOptions())
    ptr = _P()
    err = _Error()
    if isinstance(source, dict):
        text = json.dumps(source).encode()  # JSON is YAML
        _check(_load_buffer_opts(b"<dict>", text, len(text), ctypes.byref(opt),
                                 ctypes.byref(ptr), ctypes.byref(err)), err)
        return Workload(ptr, None, text, m)
    _check(_load_file_opts(_bytes(source), ctypes.byref(opt), ctypes.byref(ptr),
                           ctypes.byref(err)), err)
    return Workload(ptr, os.fspath(source), None, m)


def _load_again(workload, model=None):
    """A workload of its own, loaded again from where workload came from,
    with the model given (a path), else with the one it was loaded with."""
    model = workload.model if model is None else model
    if workload._text is None:
        return load(workload.path, model)
    return load(json.loads(workload._text), model)


def _with_model(workload, model):
    """workload, or (model given) a copy whose costs come from the model;
    and the model's pointer for the options (NULL when there is none)."""
    if model is not None:
        workload = _load_again(workload, model)
    return workload, workload.model._ptr if workload.model else None


def policies():
    """policies() -> {name: description} of every registered policy, in the
    order `hetsched map -a help` lists them."""
    out = {}
    p = _policy_list()
    i = 0
    while p[i]:
        out[_policy_name(p[i]).decode()] = _policy_description(p[i]).decode()
        i += 1
    return out


def _policy_or_schedule(policy, schedule):
    """The policy's name for hs_map and hs_run: None with a schedule."""
    if (policy is None) == (schedule is None):
        raise ValueError("give a policy or a schedule (a path), not %s"
                         % ("both" if policy is not None else "neither"))
    return None if policy is None else policy.encode()


def _predict(workload, predict, opt):
    """Sets opt's executor depths for predict="executor" (as `--predict`);
    returns what must live as long as opt."""
    if predict not in _PREDICTS:
        raise ValueError("predict wants executor or delay, not %r" % (predict,))
    if predict == "delay":
        return None
    depth = (ctypes.c_int * (_MAX_DEVICES + 1))()
    err = _Error()
    _check(_executor_depths(workload._ptr, depth, ctypes.byref(err)), err)
    opt.executor_depth = ctypes.cast(depth, ctypes.c_void_p)
    return depth


def map(workload, policy=None, *, seed=0, thr=0, budget_ms=0.0, split_threshold_us=0.0,
        model=None, schedule=None, predict="delay"):
    """map(workload, policy, **options) -> Schedule: maps every task with
    the named policy in the simulator (delay model), as `hetsched map -a
    POLICY` does; predict="executor" uses the model with which run()
    predicts itself (copies queue on their link), as `--predict executor`.  Options: seed (of `random`), thr (dispatch threshold of
    h-ratio and d-rank; 0: the policy's), budget_ms (best only: time for its
    portfolio and local search; 0: 100), split_threshold_us (ad-part: split
    a kernel predicted longer than this; 0: its default), model (a
    performance-model file, as --model: the costs of typed kernels without
    cost_us, and ad-part's part costs; the schedule then refers to a copy
    of the workload loaded with it; default: the model load() was given).
    map(workload, schedule=PATH) runs the schedule of the JSON file PATH
    instead of a policy, as `hetsched map --schedule PATH` does: each task
    on its device there, each device's tasks in their order there."""
    name = _policy_or_schedule(policy, schedule)
    if budget_ms and policy != "best":
        raise ValueError("budget_ms applies to policy best only, not to %s" % policy)
    workload, perfmodel = _with_model(workload, model)
    opt = _MapOptions(seed=seed, thr=thr, split_threshold_us=split_threshold_us,
                      budget_ms=budget_ms, perfmodel=perfmodel)
    depth = _predict(workload, predict, opt)  # lives as long as opt
    given = _S()
    out = _S()
    err = _Error()
    try:
        if schedule is not None:
            _check(_schedule_read_given(workload._ptr, _bytes(schedule), ctypes.byref(given),
                                        ctypes.byref(err)), err)
            opt.schedule = ctypes.cast(given, _P)
        _check(_map(workload._ptr, name, ctypes.byref(opt), ctypes.byref(out), None,
                    ctypes.byref(err)), err)
    finally:
        _schedule_free(given)
    return Schedule(out, workload)


def optimal(workload, time_limit=60.0, *, formulation="compact", rel_gap=1e-6):
    """optimal(workload, time_limit=60) -> Schedule: the MILP's best
    whole-task schedule within time_limit seconds (GLPK), as `hetsched
    optimal` finds it.  The schedule also has .status ("optimal",
    "feasible", ...), .bound_us (the proven lower bound) and .gap.
    formulation: "compact" or "paper".  Raises hetsched.Error when no
    schedule was found."""
    forms = {"compact": 0, "paper": 1}
    if formulation not in forms:
        raise ValueError("formulation wants compact or paper, not %r" % (formulation,))
    opt = _MilpOptions()
    _milp_options_init(ctypes.byref(opt))
    opt.formulation = forms[formulation]
    opt.time_limit_s = time_limit
    opt.rel_gap = rel_gap
    opt.progress = 0
    res = _MilpResult()
    err = _Error()
    _check(_milp_solve(workload._ptr, ctypes.byref(opt), ctypes.byref(res), ctypes.byref(err)),
           err)
    status = _milp_status_name(res.status).decode()
    if not res.schedule:
        _milp_result_free(ctypes.byref(res))
        raise Error(_Error(code=-7, msg=("no schedule: " + status).encode()))
    s = Schedule(_take(res, "schedule"), workload)
    s.status, s.bound_us, s.gap = status, res.bound_us, res.gap
    _milp_result_free(ctypes.byref(res))
    return s


def compare(workload, policies=None, *, optimal=False, time_limit=60.0, seed=0, model=None,
            predict="delay"):
    """compare(workload, policies=None) -> list of dicts, one per policy
    (every registered one, in `hetsched map -a help` order, or the names
    given), as `hetsched compare --csv` writes its rows:
      policy, makespan_us, speedup (cpu-only's makespan / this one's; None
      when cpu-only did not run or is not among the policies), per_best
      (/ the least makespan of the rows), per_bound (/ the workload's lower
      bound; None when that is 0), per_optimum (with optimal=True: / the
      MILP's makespan, else None), map_ms (time spent in the policy), and
      not_run: why a policy cannot map this workload (its numbers are then
      None), else None.
    Each schedule is validated.  optimal=True adds the row "optimal": the
    MILP's best whole-task schedule within time_limit seconds.  seed goes to
    the policies that read one; model and predict as in map() (the MILP
    optimises the delay model: optimal=True goes with predict="delay")."""
    names = list(globals()["policies"]()) if policies is None else list(policies)
    if optimal and predict != "delay":
        raise ValueError("optimal solves the delay model's MILP: it does not go with "
                         "predict=%r" % (predict,))
    workload, perfmodel = _with_model(workload, model)
    rows = []
    for name in names:
        takes_seed = name in ("random", "best")
        opt = _MapOptions(seed=seed if takes_seed else 0, perfmodel=perfmodel)
        depth = _predict(workload, predict, opt)  # lives as long as opt
        out, stats, err = _S(), _MapStats(), _Error()
        rc = _map(workload._ptr, name.encode(), ctypes.byref(opt), ctypes.byref(out),
                  ctypes.byref(stats), ctypes.byref(err))
        row = {"policy": name, "makespan_us": None, "speedup": None, "per_best": None,
               "per_bound": None, "per_optimum": None, "map_ms": None, "not_run": None}
        if rc == _EINPUT:
            row["not_run"] = err.msg.decode("utf-8", "replace")
        else:
            _check(rc, err)
            schedule = Schedule(out, workload)  # owns and frees out
            schedule.validate()
            row["makespan_us"] = schedule.makespan_us
            row["map_ms"] = 1e3 * stats.mapping_seconds
        rows.append(row)
    if optimal:
        best = globals()["optimal"](workload, time_limit)
        rows.append({"policy": "optimal", "makespan_us": best.makespan_us, "speedup": None,
                     "per_best": None, "per_bound": None, "per_optimum": None,
                     "map_ms": None, "not_run": None})
    ran = [r for r in rows if r["not_run"] is None]
    least = min((r["makespan_us"] for r in ran), default=None)
    cpu_only = next((r["makespan_us"] for r in ran if r["policy"] == "cpu-only"), None)
    bound = workload.lower_bound_us()
    for r in ran:
        m = r["makespan_us"]
        if cpu_only is not None and m > 0:
            r["speedup"] = cpu_only / m
        if least:
            r["per_best"] = m / least
        if bound > 0:
            r["per_bound"] = m / bound
        if optimal and rows[-1]["makespan_us"] > 0:
            r["per_optimum"] = m / rows[-1]["makespan_us"]
    return rows


_CHECKS = {"sample": 0, "full": 1, "none": 2}
_PREDICTS = {"executor": 0, "delay": 1}


def run(workload, policy=None, backend=None, *, devices=None, check="sample", seed=0, thr=0,
        predict="executor", device_memory=0, split=None, split_mode="live",
        split_options=(), fail=None, throttle=None, model=None, schedule=None):
    """run(workload, policy, backend=None, **options) -> RunResult: executes
    the workload with the named policy for real, as `hetsched run` does,
    and gives the measured schedule.  backend: "cpu", "emu", "cuda" or None
    (cpu when every device is a cpu, else cuda when CUDA finds a GPU, else
    emu).  Options, each as the command's option of that name: devices
    ("cpu0,gpu0": run on these only; the schedules then refer to a copy of
    the workload that has only them, and workload stays as it is),
    check ("sample", "full", "none"), seed, thr, predict ("executor", "delay"),
    device_memory (bytes), split (a splitter's name), split_mode ("live",
    "planned"), split_options (["beta=0.5", ...]), fail ((device, n): the
    device fails at its n-th task), throttle ((cpu device, factor)), model
    (a performance-model file, as map's).
    run(workload, schedule=PATH, ...) runs the schedule of the JSON file
    PATH instead of a policy, as `hetsched run --schedule PATH` does: each
    task on its device there, each device's tasks in their order there."""
    name = _policy_or_schedule(policy, schedule)
    if check not in _CHECKS:
        raise ValueError("check wants sample, full or none, not %r" % (check,))
    if predict not in _PREDICTS:
        raise ValueError("predict wants executor or delay, not %r" % (predict,))
    if split_mode not in ("live", "planned"):
        raise ValueError("split_mode wants live or planned, not %r" % (split_mode,))
    kv = (ctypes.c_char_p * (len(split_options) + 1))(*[o.encode() for o in split_options])
    if devices is not None:
        workload = _load_again(workload, model)  # hs_run keeps only those devices in it
    workload, perfmodel = _with_model(workload, None if devices is not None else model)
    opt = _RunOptions(backend=_bytes(backend), devices=_bytes(devices), perfmodel=perfmodel,
                      device_memory=device_memory, check=_CHECKS[check], seed=seed, thr=thr,
                      split=_bytes(split), split_planned=split_mode == "planned",
                      split_options=kv, predict=_PREDICTS[predict],
                      schedule=_bytes(schedule))
    if fail is not None:
        opt.fail_device, opt.fail_after = fail[0].encode(), fail[1]
    if throttle is not None:
        opt.throttle_device, opt.throttle = throttle[0].encode(), throttle[1]
    res = _RunResult()
    err = _Error()
    _check(_run(workload._ptr, name, ctypes.byref(opt), ctypes.byref(res), ctypes.byref(err)),
           err)
    r = RunResult(_take(res, "schedule"), workload)
    r.predicted = Schedule(_take(res, "predicted"), workload)
    n = res.nmemories
    r.backend = res.backend.decode()
    r.typed, r.checked, r.untyped = res.typed, res.checked, res.untyped
    r.links = {(i // n, i % n): (res.link_bytes[i], res.link_copies[i], res.link_us[i])
               for i in range(n * n) if res.link_copies[i]}
    r.stats = {k: getattr(res.stats, k) for k in ("failed_devices", "rerun", "live_splits",
                                                   "chunks")}
    r.kernels = [{"kernel": k.kernel.decode(), "device": k.device, "tasks": k.tasks,
                  "measured_us": k.measured_us, "model_us": k.model_us}
                 for k in res.kernels[:res.nkernels]]
    r.overhead_us = [res.overhead_us[d] for d in range(res.ndevices)]
    r.devices, r.predicted_devices = (
        [{"busy_us": st[d].busy_us, "tasks": st[d].tasks, "held_idle_us": st[d].held_idle_us,
          "ready_idle_us": st[d].ready_idle_us, "behind_idle_us": st[d].behind_idle_us,
          "launch_idle_us": st[d].launch_idle_us}
         for d in range(res.ndevices)] for st in (res.devices, res.predicted_devices))
    r.outputs_digest = res.outputs_digest
    r.setup_us = {"total": res.setup_us, "inputs": res.inputs_us, "buffers": res.buffers_us,
                  "warmup": res.warmup_us}
    r.teardown_us = res.teardown_us
    _run_result_free(ctypes.byref(res))
    return r

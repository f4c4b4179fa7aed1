"""The Python module (python/hetsched) on the library just built: the same
makespans as the command line, schedules as Python objects, runs, the MILP,
and the library's errors as hetsched.Error.  Run by meson with
PYTHONPATH=python and LD_LIBRARY_PATH=build."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

if os.environ.get("HS_SANITIZED"):
    sys.exit(77)  # python3 does not load the sanitizers' runtime first: skipped

import hetsched

ROOT = os.environ.get("HS_SOURCE_ROOT", ".")
HETSCHED = os.environ.get("HETSCHED", "build/cli/hetsched")
CASE = os.path.join(ROOT, "workloads", "case-study.yaml")
RUN_SMALL = os.path.join(ROOT, "workloads", "run-small.yaml")
TYPED = os.path.join(ROOT, "workloads", "typed-example.yaml")
MODEL = os.path.join(ROOT, "workloads", "models", "example.json")


def command(*args):
    return subprocess.run([HETSCHED, *args], check=True, capture_output=True,
                          text=True).stdout


class Map(unittest.TestCase):
    def test_every_policy_gives_the_commands_makespan(self):
        w = hetsched.load(CASE)
        for name in hetsched.policies():
            s = hetsched.map(w, name)
            out = command("map", "-a", name, CASE)
            printed = re.search(r"makespan ([0-9.]+) us", out).group(1)
            self.assertEqual("%.3f" % s.makespan_us, printed, name)
            self.assertEqual(s.algorithm, name)
            s.validate()

    def test_heft_on_the_case_study(self):
        s = hetsched.map(hetsched.load(CASE), "heft")
        # the chain ab -> add on the GPU plus its output's copy (README)
        self.assertEqual(round(s.makespan_us, 3), 6390.208)
        self.assertEqual(s.model, "delay")
        self.assertEqual(sorted(t["id"] for t in s.tasks),
                         ["va#0/add", "va#0/scale", "xgemm#0/ab", "xgemm#0/add",
                          "xgemm#0/cd"])
        ab = [t for t in s.tasks if t["id"] == "xgemm#0/ab"][0]
        self.assertEqual(ab["device"], "gpu0")
        self.assertEqual(ab["fraction"], 1.0)
        self.assertEqual(max(t["end_us"] for t in s.transfers), s.makespan_us)

    def test_the_executors_model(self):
        # what `map --predict executor` prints, and what run() predicts: the
        # delay model's 6390.208 us plus add's 4 MiB output back to host
        w = hetsched.load(CASE)
        s = hetsched.map(w, "h-ratio", predict="executor")
        self.assertEqual(s.model, "executor")
        self.assertEqual(round(s.makespan_us, 3), 6749.733)
        out = command("map", "-a", "h-ratio", CASE, "--predict", "executor")
        self.assertIn("makespan %.3f us (executor's model)" % s.makespan_us, out)
        s.validate()  # a run's rules: order, copies before use, makespan
        self.assertEqual(round(hetsched.map(w, "h-ratio", predict="delay").makespan_us, 3),
                         6390.208)
        rows = {r["policy"]: r for r in hetsched.compare(w, ["h-ratio", "eager"],
                                                          predict="executor")}
        lines = command("compare", CASE, "--predict", "executor", "--csv", "-").splitlines()
        for line in lines[1:]:
            f = line.split(",")
            if f[0] in rows:
                self.assertAlmostEqual(rows[f[0]]["makespan_us"], float(f[2]), places=6)
        with self.assertRaises(ValueError):
            hetsched.map(w, "h-ratio", predict="fast")
        with self.assertRaises(ValueError):
            hetsched.compare(w, optimal=True, predict="executor")

    def test_a_workload_from_dicts(self):
        # a (100 us) -> b (100 us) on one cpu: 200 us, hand-checked
        w = hetsched.load({
            "platform": {"devices": [{"name": "cpu0", "kind": "cpu", "memory": "host"}]},
            "applications": [{"name": "app", "kernels": [
                {"name": "a", "cost_us": {"cpu": 100}},
                {"name": "b", "cost_us": {"cpu": 100}}],
                "edges": [{"from": "a", "to": "b", "bytes": 0}]}]})
        s = hetsched.map(w, "eager")
        self.assertEqual(s.makespan_us, 200.0)
        self.assertEqual([(t["id"], t["start_us"]) for t in s.tasks],
                         [("app#0/a", 0.0), ("app#0/b", 100.0)])

    def test_policies_are_the_commands(self):
        listing = command("map", "-a", "help")
        p = hetsched.policies()
        self.assertIn("heft", p)
        for name, description in p.items():
            self.assertRegex(listing, r"\n  %s +%s\n" % (re.escape(name),
                                                         re.escape(description)))

    def test_options(self):
        w = hetsched.load(CASE)
        a = hetsched.map(w, "random", seed=1)
        b = hetsched.map(w, "random", seed=1)
        self.assertEqual(a.tasks, b.tasks)
        out = command("map", "-a", "random", "--seed", "7", CASE)
        self.assertEqual("%.3f" % hetsched.map(w, "random", seed=7).makespan_us,
                         re.search(r"makespan ([0-9.]+) us", out).group(1))
        with self.assertRaisesRegex(ValueError, "budget_ms applies to policy best only"):
            hetsched.map(w, "heft", budget_ms=10)
        with self.assertRaises(TypeError):
            hetsched.map(w, "heft", nonsense=1)


    def test_a_performance_model(self):
        # typed-example's gemm has no cost_us: its costs come from the model
        with self.assertRaisesRegex(hetsched.Error, "no performance model is loaded"):
            hetsched.load(TYPED)
        w = hetsched.load(TYPED, model=MODEL)
        for name in ("heft", "ad-part"):  # ad-part also sizes its parts with it
            out = command("map", "-a", name, TYPED, "--model", MODEL)
            self.assertEqual("%.3f" % hetsched.map(w, name).makespan_us,
                             re.search(r"makespan ([0-9.]+) us", out).group(1), name)
        # map's model= on a workload loaded without one: the same as --model
        c = hetsched.load(CASE)
        out = command("map", "-a", "ad-part", CASE, "--model", MODEL)
        s = hetsched.map(c, "ad-part", model=MODEL)
        self.assertEqual("%.3f" % s.makespan_us,
                         re.search(r"makespan ([0-9.]+) us", out).group(1))
        s.validate()
        r = hetsched.run(hetsched.load(TYPED, model=MODEL), "heft", backend="emu", check="none",
                         predict="delay")
        self.assertEqual(round(r.predicted.makespan_us, 3),
                         round(hetsched.map(w, "heft").makespan_us, 3))
        with self.assertRaisesRegex(hetsched.Error, "cannot read"):
            hetsched.map(c, "heft", model=os.path.join(ROOT, "no-such-model.json"))


class Compare(unittest.TestCase):
    def test_compare_gives_the_commands_rows(self):
        rows = {r["policy"]: r for r in hetsched.compare(hetsched.load(CASE))}
        lines = command("compare", CASE, "--csv", "-").splitlines()
        self.assertEqual(list(rows), [line.split(",")[0] for line in lines[1:]])
        for line in lines[1:]:
            f = line.split(",")
            r = rows[f[0]]
            for key, text in (("makespan_us", f[2]), ("speedup", f[3]), ("per_best", f[5]),
                              ("per_bound", f[6])):
                self.assertAlmostEqual(r[key], float(text), delta=1e-9 * float(text),
                                       msg="%s %s" % (f[0], key))
            self.assertIsNone(r["not_run"])
        self.assertEqual(rows["cpu-only"]["speedup"], 1.0)
        self.assertEqual(rows["ad-part"]["per_best"], 1.0)

    def test_compare_says_why_a_policy_does_not_run(self):
        # one gpu: cpu-only has no device, heft maps a (10 us) -> b (20 us)
        w = hetsched.load({
            "platform": {"devices": [{"name": "gpu0", "kind": "gpu", "memory": "host"}]},
            "applications": [{"name": "app", "kernels": [
                {"name": "a", "cost_us": {"gpu": 10}},
                {"name": "b", "cost_us": {"gpu": 20}}],
                "edges": [{"from": "a", "to": "b", "bytes": 0}]}]})
        rows = hetsched.compare(w, ["heft", "cpu-only"], optimal=True, time_limit=10)
        self.assertEqual([r["policy"] for r in rows], ["heft", "cpu-only", "optimal"])
        self.assertEqual(rows[0]["makespan_us"], 30.0)
        self.assertEqual(rows[0]["per_optimum"], 1.0)
        self.assertIsNone(rows[0]["speedup"])  # no cpu-only makespan to divide
        self.assertIn("needs a CPU device", rows[1]["not_run"])
        self.assertIsNone(rows[1]["makespan_us"])
        self.assertEqual(rows[2]["makespan_us"], 30.0)


class Optimal(unittest.TestCase):
    def test_the_case_studys_optimum(self):
        w = hetsched.load(CASE)
        s = hetsched.optimal(w, time_limit=60)
        self.assertEqual(s.status, "optimal")
        self.assertEqual(round(s.makespan_us, 3), 6390.208)
        self.assertLessEqual(s.bound_us, s.makespan_us)
        self.assertEqual(s.algorithm, "optimal")
        s.validate()


class Given(unittest.TestCase):
    def test_the_optimum_run_as_given(self):
        w = hetsched.load(CASE)
        path = os.path.join(self.tmp, "optimal.json")
        hetsched.optimal(w, time_limit=60).write_json(path)
        s = hetsched.map(w, schedule=path)
        self.assertEqual(round(s.makespan_us, 3), 6390.208)
        self.assertEqual(s.algorithm, "given")
        r = hetsched.run(w, schedule=path, backend="emu")
        self.assertEqual(r.algorithm, "given")
        self.assertEqual({t["id"]: t["device"] for t in r.tasks},
                         {t["id"]: t["device"] for t in s.tasks})
        r.validate()

    def test_refused(self):
        w = hetsched.load(CASE)
        path = os.path.join(self.tmp, "heft.json")
        hetsched.map(w, "heft").write_json(path)
        with self.assertRaisesRegex(ValueError, "give a policy or a schedule"):
            hetsched.run(w, "heft", schedule=path)
        with self.assertRaisesRegex(ValueError, "not neither"):
            hetsched.map(w)
        with self.assertRaisesRegex(hetsched.Error, r"^--split does not apply to --schedule"):
            hetsched.run(w, schedule=path, split="hdss")
        with self.assertRaisesRegex(hetsched.Error, r"^%s:\d+:\d+: error: tasks\[\d+\]\.device: "
                                    r"no device 'gpu0' in the workload$" % re.escape(path)):
            hetsched.run(w, schedule=path, devices="cpu0")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)


class Run(unittest.TestCase):
    def test_emu_checks_every_kernel(self):
        w = hetsched.load(RUN_SMALL)
        r = hetsched.run(w, "heft", backend="emu", check="full")
        self.assertEqual(r.backend, "emu")
        self.assertEqual(r.model, "measured")
        self.assertEqual((r.typed, r.checked, r.untyped), (6, 6, 2))
        self.assertEqual(len(r.tasks), 8)
        self.assertEqual(r.predicted.model, "executor")
        self.assertEqual(round(r.predicted.makespan_us, 3), 990.0)  # README's prediction
        self.assertTrue(all(copies > 0 for _, copies, _ in r.links.values()))
        # the kernel table covers every task once, the gaps every device that ran one
        self.assertEqual(sum(k["tasks"] for k in r.kernels), 8)
        self.assertIn("cost-only", [k["kernel"] for k in r.kernels])
        self.assertEqual(len(r.overhead_us), 2)  # cpu0 and gpu0
        self.assertTrue(all(g >= 0 for g in r.overhead_us))
        # busy time and tasks per device, from the placements; idle while
        # holding work, measured and predicted (README's: 45 us of 990 on each)
        self.assertEqual([d["tasks"] for d in r.devices],
                         [sum(t["device"] == n for t in r.tasks) for n in ("cpu0", "gpu0")])
        self.assertAlmostEqual(sum(d["busy_us"] for d in r.devices),
                               sum(t["end_us"] - t["start_us"] for t in r.tasks), places=3)
        self.assertTrue(all(d["held_idle_us"] >= 0 for d in r.devices))
        self.assertEqual([round(d["held_idle_us"], 3) for d in r.predicted_devices], [45.0, 45.0])
        # of which with the inputs there: a part of it; none predicted (the
        # model starts a task as its last input arrives)
        self.assertTrue(all(0 <= d["ready_idle_us"] <= d["held_idle_us"] + 1e-9
                            for d in r.devices))
        self.assertEqual([d["ready_idle_us"] for d in r.predicted_devices], [0.0, 0.0])
        # and of that, behind a waiting head and launching: parts of it
        self.assertTrue(all(0 <= d["behind_idle_us"] and 0 <= d["launch_idle_us"] and
                            d["behind_idle_us"] + d["launch_idle_us"] <=
                            d["ready_idle_us"] + 1e-9 for d in r.devices))
        self.assertEqual([d["behind_idle_us"] for d in r.predicted_devices], [0.0, 0.0])
        # what the run cost beyond its makespan: the phases lie within the
        # set-up (typed inputs made, kernels warmed up), the end after it
        s = r.setup_us
        self.assertGreater(s["inputs"], 0)
        self.assertGreater(s["warmup"], 0)
        self.assertGreaterEqual(s["buffers"], 0)
        self.assertLessEqual(s["inputs"] + s["buffers"] + s["warmup"], s["total"])
        self.assertGreater(r.teardown_us, 0)
        r.validate()

    def test_a_subset_of_devices(self):
        w = hetsched.load(RUN_SMALL)
        r = hetsched.run(w, "eager", devices="cpu0", check="none")
        self.assertEqual(r.backend, "cpu")  # only a cpu is left
        self.assertEqual({t["device"] for t in r.tasks}, {"cpu0"})
        self.assertEqual(r.links, {})
        # the workload given keeps both devices: a schedule of it still maps gpu0
        s = hetsched.map(w, "heft")
        self.assertIn("gpu0", {t["device"] for t in s.tasks})
        d = {"platform": {"devices": [{"name": "cpu0", "kind": "cpu", "memory": "host"},
                                      {"name": "cpu1", "kind": "cpu", "memory": "host"}]},
             "applications": [{"name": "app", "kernels": [{"name": "a", "cost_us": {"cpu": 10}}]}]}
        r = hetsched.run(hetsched.load(d), "eager", devices="cpu1")
        self.assertEqual([t["device"] for t in r.tasks], ["cpu1"])

    def test_options_that_do_not_apply(self):
        w = hetsched.load(CASE)
        with self.assertRaisesRegex(hetsched.Error, "--thr does not apply to policy heft"):
            hetsched.run(w, "heft", backend="emu", thr=3)
        with self.assertRaisesRegex(hetsched.Error, "--seed does not apply to policy heft"):
            hetsched.run(w, "heft", backend="emu", seed=3)

    def test_a_device_fails(self):
        w = hetsched.load(RUN_SMALL)
        r = hetsched.run(w, "eager", backend="emu", fail=("gpu0", 1))
        self.assertEqual(r.stats["failed_devices"], 1)
        self.assertEqual({t["device"] for t in r.tasks}, {"cpu0"})


class Errors(unittest.TestCase):
    def test_the_librarys_messages(self):
        with self.assertRaisesRegex(hetsched.Error, r"^nope\.yaml: cannot read") as e:
            hetsched.load("nope.yaml")
        self.assertEqual(e.exception.code, -1)  # HS_EINPUT
        with self.assertRaisesRegex(hetsched.Error, r"^<dict>:1:\d+: error: applications: "):
            hetsched.load({"platform": {"devices": [{"name": "cpu0", "kind": "cpu",
                                                     "memory": "host"}]},
                           "applications": 3})
        w = hetsched.load(CASE)
        with self.assertRaisesRegex(hetsched.Error, r"^unknown policy 'nope' \(see hetsched "
                                    r"map -a help\)$"):
            hetsched.map(w, "nope")
        with self.assertRaisesRegex(hetsched.Error, r"^--backend wants cpu, emu or cuda, "
                                    r"not 'sim'$"):
            hetsched.run(w, "heft", backend="sim")
        with self.assertRaisesRegex(hetsched.Error, r"^--devices: the platform has no device "
                                    r"'gpu7'$"):
            hetsched.run(w, "heft", devices="gpu7")
        with self.assertRaisesRegex(ValueError, "check wants sample, full or none"):
            hetsched.run(w, "heft", check="most")

    def test_help_text_on_each(self):
        for f in (hetsched.load, hetsched.policies, hetsched.map, hetsched.optimal,
                  hetsched.run, hetsched.Schedule, hetsched.RunResult, hetsched.Workload):
            self.assertGreater(len(f.__doc__ or ""), 40, f.__name__)


class Readme(unittest.TestCase):
    """What the README promises, run as a user runs it: python3 itself in
    the source tree, the module found through PYTHONPATH (as the test's)."""

    def python(self, code):
        return subprocess.run([sys.executable, "-c", code], check=True,
                              capture_output=True, text=True, cwd=ROOT).stdout

    def test_python_c_prints_the_commands_makespan(self):
        out = self.python("import hetsched; print('%.3f' % hetsched.map("
                          "hetsched.load('workloads/case-study.yaml'), 'heft').makespan_us)")
        printed = re.search(r"makespan ([0-9.]+) us",
                            command("map", "-a", "heft", CASE)).group(1)
        self.assertEqual(out, printed + "\n")
        self.assertEqual(out, "6390.208\n")

    def test_the_readme_example_prints_what_the_readme_shows(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        at = text.index("## From C and Python")
        code = re.search(r"```python\n(.*?)```", text[at:], re.S).group(1)
        shown = re.search(r"```python\n.*?```\n\n```\n(.*?)```", text[at:], re.S).group(1)
        self.assertEqual(self.python(code), shown)


if __name__ == "__main__":
    unittest.main(verbosity=2)

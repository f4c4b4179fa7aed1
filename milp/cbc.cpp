// hetsched — the MILP solved by COIN-OR CBC (milp/cbc.h).
//
// C++ because what the search needs is C++ only: an event handler
// (CbcEventHandler) that CBC asks after every node, which stops it when
// asked (and a watcher for the stretches where CBC asks none, below); the solver's settings (CbcSolverUsefulData) where its own SIGINT
// handler is switched off (CBC's C interface installs that handler and
// never gives SIGINT back); and a cut generator that adds the node bounds
// of milp/solve.c.  The driver is the one the C interface runs (CbcMain0,
// CbcMain1: cuts, heuristics, strong branching), without the preprocessing
// that would renumber the columns the node bounds read: on milp_bench's
// five instances of 25 tasks the node bounds took the median gap after a
// minute of CPU from 11.4% to 4.9% (one instance proven either way).
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CglCutGenerator.hpp>
#include <CoinError.hpp>
#include <OsiClpSolverInterface.hpp>
#include <OsiCuts.hpp>
#include <OsiRowCut.hpp>

#include "milp/cbc.h"

namespace {

// Says "stop" at any event once *stop_ is set.
class stop_handler : public CbcEventHandler {
  public:
    explicit stop_handler(volatile sig_atomic_t *stop) : stop_(stop) {}
    CbcAction event(CbcEvent) override { return wanted() ? stop : noAction; }
    CbcAction event(CbcEvent, void *) override { return wanted() ? stop : noAction; }
    CbcEventHandler *clone() const override { return new stop_handler(*this); }

  private:
    bool wanted() const { return stop_ && *stop_; }
    volatile sig_atomic_t *stop_;
};

// At every node: objective >= the caller's bound for the node's column
// bounds, as a cut valid below this node only.
class node_bound_cuts : public CglCutGenerator {
  public:
    explicit node_bound_cuts(const hs__cbc_problem *p) : p_(p) {}
    using CglCutGenerator::generateCuts;
    void generateCuts(const OsiSolverInterface &si, OsiCuts &cs,
                      const CglTreeInfo = CglTreeInfo()) override
    {
        double obj = si.getObjValue();
        double b = p_->node_bound(p_->node_ctx, si.getColLower(), si.getColUpper());
        if (b > obj + 1e-7 * (1 + std::fabs(obj))) {
            OsiRowCut cut;
            int col = p_->objective_col;
            double one = 1;
            cut.setRow(1, &col, &one);
            cut.setLb(b);
            cut.setUb(COIN_DBL_MAX);
            cut.setGloballyValid(false);
            cs.insert(cut);
        }
    }
    CglCutGenerator *clone() const override { return new node_bound_cuts(*this); }

  private:
    const hs__cbc_problem *p_;
};

// The model CbcMain1 searches (a copy of ours), from just before its
// branch and bound to just after, and a watcher that stops it once *stop
// is set: CBC asks the event handler only at some events, and not at all
// in stretches of the root's cuts and heuristics, where an interrupt
// waited up to 9 s (and once, in a test, the whole time limit).  The
// watcher does what CBC's own SIGINT handler does, and also sets the
// model's time limit to 0, which every heuristic and sub-search checks.
class search_watch {
  public:
    explicit search_watch(volatile sig_atomic_t *stop)
    {
        current_ = this;
        if (stop)
            watcher_ = std::thread(&search_watch::watch, this, stop);
    }
    ~search_watch()
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            over_ = true;
        }
        if (watcher_.joinable())
            watcher_.join();
        current_ = nullptr;
    }
    // CbcMain1's callback (it takes no context: the solving thread's watch)
    static int on_phase(CbcModel *model, int where)
    {
        if (current_ && (where == 3 || where == 4)) { // before, after branch and bound
            std::lock_guard<std::mutex> lock(current_->mu_);
            current_->model_ = where == 3 ? model : nullptr;
        }
        return 0;
    }

  private:
    void watch(volatile sig_atomic_t *stop)
    {
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (over_)
                    return;
                // the flag is set on another thread (a signal handler's, a
                // test's node hook): read as an atomic, as it is written
                if (__atomic_load_n(stop, __ATOMIC_RELAXED) && model_) {
                    model_->sayEventHappened();
                    model_->setMaximumSeconds(0);
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    static thread_local search_watch *current_;
    std::mutex mu_; // model_ and over_
    CbcModel *model_ = nullptr;
    bool over_ = false;
    std::thread watcher_;
};

thread_local search_watch *search_watch::current_ = nullptr;

} // namespace

extern "C" int hs__cbc_solve(const hs__cbc_problem *p, hs__cbc_answer *a, double *x)
{
    *a = hs__cbc_answer();
    try {
        OsiClpSolverInterface solver;
        solver.loadProblem(p->ncols, p->nrows, p->start, p->index, p->value, p->collb,
                           p->colub, p->obj, p->rowlb, p->rowub);
        for (int j = 0; j < p->ncols; j++)
            if (p->integer[j])
                solver.setInteger(j);
        solver.setObjSense(1);
        CbcModel model(solver); // a copy of solver
        CbcSolverUsefulData data;
        CbcMain0(model, data);
        data.useSignalHandler_ = false;
        data.noPrinting_ = false; // the log level below decides
        model.setLogLevel(p->verbose ? 1 : 0);
        model.setMaximumSeconds(p->seconds);
        model.setAllowableFractionGap(p->rel_gap);
        stop_handler handler(p->stop);
        model.passInEventHandler(&handler); // cloned
        node_bound_cuts bounds(p);
        if (p->node_bound)
            model.addCutGenerator(&bounds, 1, "node bounds"); // cloned; every node
        if (p->mip_start) {
            // CBC takes a start by column names (the default ones here)
            std::vector<std::pair<std::string, double>> start;
            start.reserve(static_cast<size_t>(p->ncols));
            for (int j = 0; j < p->ncols; j++)
                start.emplace_back(model.solver()->getColName(j), p->mip_start[j]);
            model.setMIPStart(start);
        }
        const char *argv[] = {"hetsched", "-timeMode", "elapsed", "-preprocess", "off",
                              "-solve", "-quit"};
        {
            search_watch watching(p->stop); // joined when CbcMain1 returns or throws
            CbcMain1(static_cast<int>(sizeof argv / sizeof argv[0]), argv, model,
                     search_watch::on_phase, data);
        }
        a->nodes = model.getNodeCount();
        a->bound = model.getBestPossibleObjValue();
        a->proven_optimal = model.isProvenOptimal();
        a->proven_infeasible = model.isProvenInfeasible();
        a->interrupted = p->stop && *p->stop;
        if (const double *best = model.bestSolution()) {
            std::copy(best, best + p->ncols, x);
            a->has_solution = 1;
        }
    } catch (const std::bad_alloc &) {
        return -1;
    } catch (const CoinError &) {
        return -1;
    }
    return 0;
}

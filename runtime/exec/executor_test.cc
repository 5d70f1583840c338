// Executor and session behaviour with small test-only kernels (the real kernels live in
// kernels/, which depends on runtime/): pruning, feeds that cut the graph, control edges,
// reference edges, errors, and concurrent runs.
#include <atomic>
#include <thread>
#include <map>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "runtime/exec/session.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

std::atomic<int> g_side_effects{0};

// TConst: float scalar from attr "v".
class TConst : public OpKernel {
 public:
  explicit TConst(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("v", &v_); }
  absl::Status Compute(OpKernelContext* c) const override {
    c->set_output(0, Tensor::Scalar<float>(v_));
    return absl::OkStatus();
  }

 private:
  float v_ = 0;
};

// TAdd: sum of all inputs (float scalars).
class TAdd : public OpKernel {
 public:
  explicit TAdd(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    float sum = 0;
    for (int i = 0; i < c->num_inputs(); ++i) {
      if (c->input(i).dtype() != DT_FLOAT) return c->InvalidArgument("TAdd wants float");
      sum += c->input(i).scalar<float>();
    }
    c->set_output(0, Tensor::Scalar<float>(sum));
    return absl::OkStatus();
  }
};

// TEffect: increments a counter; no outputs.
class TEffect : public OpKernel {
 public:
  explicit TEffect(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override {
    ++g_side_effects;
    return absl::OkStatus();
  }
};

// TSleep: sleeps 50 ms, then counts like TEffect.
class TSleep : public OpKernel {
 public:
  explicit TSleep(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override {
    absl::SleepFor(absl::Milliseconds(50));
    ++g_side_effects;
    return absl::OkStatus();
  }
};

// TFail: always fails.
class TFail : public OpKernel {
 public:
  explicit TFail(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    return c->InvalidArgument("deliberate failure");
  }
};

// TVar / TAssignAdd: a ref variable and an in-place increment through the ref edge.
class TVar : public OpKernel {
 public:
  explicit TVar(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    auto var = c->resource_mgr()->LookupOrCreate<Var>("", name(), [] {
      auto v = std::make_shared<Var>(DT_FLOAT);
      v->Assign(Tensor::Scalar<float>(0));
      return v;
    });
    if (!var.ok()) return var.status();
    c->set_output_ref(0, *var);
    return absl::OkStatus();
  }
};

class TAssignAdd : public OpKernel {
 public:
  explicit TAssignAdd(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const float delta = c->input(1).scalar<float>();
    absl::Status s = c->input_ref(0)->Update(name(), [&](Tensor* t) {
      t->scalar<float>() += delta;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    c->set_output_ref(0, c->input_ref(0));
    return absl::OkStatus();
  }
};

// TIncrement: input + 1, written into the input's buffer when the executor hands over the last
// reference to it; counts those reuses.
std::atomic<int> g_forwarded{0};
class TIncrement : public OpKernel {
 public:
  explicit TIncrement(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
    if (y->raw_data() == x.raw_data()) ++g_forwarded;
    y->scalar<float>() = x.scalar<float>() + 1;
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("TConst"), TConst);
TENSORD_REGISTER_KERNEL(KernelDef("TIncrement"), TIncrement);
TENSORD_REGISTER_KERNEL(KernelDef("TAdd"), TAdd);
TENSORD_REGISTER_KERNEL(KernelDef("TEffect"), TEffect);
TENSORD_REGISTER_KERNEL(KernelDef("TFail"), TFail);
TENSORD_REGISTER_KERNEL(KernelDef("TSleep"), TSleep);
// TPair: outputs 1 and 2, each only when some node or fetch of the run reads it; counts the
// outputs it computed.
std::atomic<int> g_pair_outputs{0};
class TPair : public OpKernel {
 public:
  explicit TPair(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < 2; ++i) {
      if (!c->output_required(i)) continue;
      c->set_output(i, Tensor::Scalar<float>(i + 1.0f));
      ++g_pair_outputs;
    }
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("TPair"), TPair);
TENSORD_REGISTER_KERNEL(KernelDef("TVar"), TVar);
TENSORD_REGISTER_KERNEL(KernelDef("TAssignAdd").RefInput(0), TAssignAdd);

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs = {}) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(in);
  return n;
}

NodeDef* AddConst(GraphDef* g, const std::string& name, float v) {
  NodeDef* n = AddNode(g, name, "TConst");
  (*n->mutable_attr())["v"].set_f(v);
  return n;
}

// One device set per inter-op pool size, shared by the tests' sessions as the server's are.
DeviceSet* DevicesWithInterOpThreads(int inter_op) {
  static auto* sets = new std::map<int, std::unique_ptr<DeviceSet>>();
  auto& set = (*sets)[inter_op];
  if (set == nullptr) set = std::make_unique<DeviceSet>(DeviceSetOptions{1, inter_op});
  return set.get();
}

std::unique_ptr<Session> MakeSession(GraphDef g, int inter_op = 2) {
  SessionOptions options;
  options.devices = DevicesWithInterOpThreads(inter_op);
  auto s = NewSession(std::move(g), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

// a=1, b=2, c=a+b, d=c+c, unused=fail
GraphDef Diamond() {
  GraphDef g;
  // Deliberately not in topological order: GraphDefs need not be sorted.
  AddNode(&g, "d", "TAdd", {"c", "c:0"});
  AddNode(&g, "c", "TAdd", {"a", "b"});
  AddConst(&g, "a", 1);
  AddConst(&g, "b", 2);
  AddNode(&g, "unused", "TFail");
  return g;
}

// Runs each test with an inter-op pool (dataflow: ready nodes fan out to the pool) and without
// one (the plan's nodes in sequence on the caller's thread).
class ExecutorModeTest : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(InterOpThreads, ExecutorModeTest, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param > 1 ? std::string("Dataflow")
                                                 : std::string("Sequence");
                         });

TEST_P(ExecutorModeTest, ComputesOnlyWhatFetchesNeed) {
  auto session = MakeSession(Diamond(), GetParam());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"d:0", "c"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
  EXPECT_EQ(out[1].scalar<float>(), 3.0f);
}

TEST(SessionTest, PrepareBuildsWithoutRunning) {
  GraphDef g = Diamond();
  AddNode(&g, "effect", "TEffect");
  auto session = MakeSession(std::move(g));
  const int effects = g_side_effects;
  ASSERT_TRUE(session->Prepare({}, {"unused"}, {"effect"}).ok());
  EXPECT_EQ(g_side_effects, effects);  // nothing ran: TFail did not fail, TEffect did not count
  std::vector<Tensor> out;
  EXPECT_FALSE(session->Run({}, {"unused"}, {"effect"}, &out).ok());
  absl::Status missing = session->Prepare({}, {"nope:0"}, {});
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("nope:0"), std::string::npos) << missing;
  EXPECT_EQ(session->device_memory_bytes(), 0u);  // CPU nodes only
}

TEST_P(ExecutorModeTest, ProfileCountsEveryKernelByOpType) {
  GraphDef g = Diamond();
  AddNode(&g, "nap", "TSleep");
  auto session = MakeSession(std::move(g), GetParam());
  OpProfile profile;
  RunOptions options;
  options.profile = &profile;
  std::vector<Tensor> out;
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(session->Run({}, {"d"}, {"nap"}, options, &out).ok());
  }
  std::map<std::string, OpProfile::Entry> by_op;
  for (const OpProfile::Entry& e : profile.Entries()) by_op[e.op] = e;
  ASSERT_EQ(by_op.size(), 3u);  // TAdd, TConst, TSleep; not TFail, which no fetch needs
  EXPECT_EQ(by_op["TAdd"].count, 4);  // c and d, twice
  EXPECT_EQ(by_op["TConst"].count, 4);
  EXPECT_EQ(by_op["TSleep"].count, 2);
  EXPECT_GE(by_op["TSleep"].total_ns, 2 * 50 * 1000 * 1000);
  EXPECT_EQ(profile.Entries()[0].op, "TSleep");
  // A run without a profile adds nothing.
  ASSERT_TRUE(session->Run({}, {"d"}, {"nap"}, &out).ok());
  EXPECT_EQ(profile.Entries().size(), 3u);
  int64_t kernels = 0;
  for (const OpProfile::Entry& e : profile.Entries()) kernels += e.count;
  EXPECT_EQ(kernels, 10);
}

// A kernel may write its output into an input's buffer only when nothing else will read that
// value: not the caller's feeds, not a fetched value, not a value another node still reads.
TEST_P(ExecutorModeTest, OutputsReuseInputBuffersOnlyAtTheirLastRead) {
  GraphDef g;
  AddConst(&g, "a", 1);
  AddNode(&g, "i1", "TIncrement", {"a"});
  AddNode(&g, "i2", "TIncrement", {"i1"});
  AddNode(&g, "other", "TIncrement", {"i1"});
  AddNode(&g, "fed", "TIncrement", {"x"});
  AddNode(&g, "x", "TConst");
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  g_forwarded = 0;
  ASSERT_TRUE(session->Run({}, {"i2"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 3);
  EXPECT_EQ(g_forwarded, 2);  // a's fresh output into i1, i1's into i2
  g_forwarded = 0;
  ASSERT_TRUE(session->Run({}, {"i1", "i2", "other"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 2);  // fetched: i2 and other must not write into it
  EXPECT_EQ(out[1].scalar<float>(), 3);
  EXPECT_EQ(out[2].scalar<float>(), 3);
  EXPECT_EQ(g_forwarded, 1);  // only a's output
  // i1 read by two nodes: the first reads it in place, only the last may write into it.
  g_forwarded = 0;
  ASSERT_TRUE(session->Run({}, {"i2", "other"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 3);
  EXPECT_EQ(out[1].scalar<float>(), 3);
  if (GetParam() == 1) {
    EXPECT_EQ(g_forwarded, 2);  // a's output into i1, i1's into whichever runs second
  } else {
    EXPECT_GE(g_forwarded, 1);  // concurrent readers are both not the last one
  }
  g_forwarded = 0;
  const Tensor feed = Tensor::Scalar<float>(10);
  ASSERT_TRUE(session->Run({{"x:0", feed}}, {"fed"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 11);
  EXPECT_EQ(feed.scalar<float>(), 10);
  EXPECT_EQ(g_forwarded, 0);
}

TEST_P(ExecutorModeTest, KernelsMaySkipOutputsNothingReads) {
  GraphDef g;
  AddNode(&g, "pair", "TPair");
  AddNode(&g, "second", "TIncrement", {"pair:1"});
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  g_pair_outputs = 0;
  ASSERT_TRUE(session->Run({}, {"second"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 3.0f);
  EXPECT_EQ(g_pair_outputs, 1);  // output 0 is below the one read, but nothing reads it
  g_pair_outputs = 0;
  ASSERT_TRUE(session->Run({}, {"pair:0", "second"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 1.0f);
  EXPECT_EQ(out[1].scalar<float>(), 3.0f);
  EXPECT_EQ(g_pair_outputs, 2);
}

TEST_P(ExecutorModeTest, FeedCutsTheGraph) {
  GraphDef g = Diamond();
  AddNode(&g, "e", "TAdd", {"unused_in"});
  AddNode(&g, "unused_in", "TFail");
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  // Feeding c replaces its producer; feeding unused_in:0 keeps TFail from running.
  absl::Status s = session->Run({{"c:0", Tensor::Scalar<float>(10)},
                                 {"unused_in:0", Tensor::Scalar<float>(1)}},
                                {"d", "e"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<float>(), 20.0f);
  EXPECT_EQ(out[1].scalar<float>(), 1.0f);
  // A fetched tensor that is fed comes straight back.
  ASSERT_TRUE(session->Run({{"a:0", Tensor::Scalar<float>(7)}}, {"a:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 7.0f);
}

TEST_P(ExecutorModeTest, TargetsRunControlDependencies) {
  GraphDef g;
  AddNode(&g, "effect", "TEffect");
  AddNode(&g, "group", "TEffect", {"^effect"});
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  const int before = g_side_effects.load();
  ASSERT_TRUE(session->Run({}, {}, {"group"}, &out).ok());
  EXPECT_EQ(g_side_effects.load() - before, 2);
}

TEST_P(ExecutorModeTest, ErrorsNameTheNodeAndRunsContinueAfterwards) {
  GraphDef g = Diamond();
  AddNode(&g, "bad", "TAdd", {"a", "unused"});
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"bad"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unused: deliberate failure"), std::string::npos) << s;
  ASSERT_TRUE(session->Run({}, {"d"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 6.0f);
}

TEST_P(ExecutorModeTest, CancellationStopsTheRunBeforeTheNextNode) {
  // A chain of 50 ms sleeps with a 75 ms deadline: the first two start in time, the third not.
  GraphDef g;
  AddNode(&g, "s1", "TSleep");
  AddNode(&g, "s2", "TSleep", {"^s1"});
  AddNode(&g, "s3", "TSleep", {"^s2"});
  auto session = MakeSession(g, GetParam());
  const int before = g_side_effects.load();
  CancellationToken token(absl::Now() + absl::Milliseconds(75));
  std::vector<Tensor> out;
  RunOptions options;
  options.cancellation = &token;
  absl::Status s = session->Run({}, {}, {"s3"}, options, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_EQ(g_side_effects.load() - before, 2);

  CancellationToken cancelled(absl::InfiniteFuture(), [] { return true; });
  options.cancellation = &cancelled;
  s = session->Run({}, {}, {"s3"}, options, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_EQ(g_side_effects.load() - before, 2);
  // Without a token the same plan runs to the end.
  ASSERT_TRUE(session->Run({}, {}, {"s3"}, &out).ok());
  EXPECT_EQ(g_side_effects.load() - before, 5);
}

TEST(ExecutorTest, UnknownOpAndUnknownTensorsAreClearErrors) {
  GraphDef g = Diamond();
  AddNode(&g, "mystery", "NoSuchOp", {"a"});
  auto session = MakeSession(g);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"mystery"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("'NoSuchOp'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'mystery'"), std::string::npos) << s;

  s = session->Run({}, {"nope:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  s = session->Run({{"nope:0", Tensor::Scalar<float>(1)}}, {"d"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = session->Run({}, {"a"}, {"no_target"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
}

TEST(ExecutorTest, CyclesAreRejected) {
  GraphDef g;
  AddNode(&g, "x", "TAdd", {"y"});
  AddNode(&g, "y", "TAdd", {"x"});
  auto session = MakeSession(g);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"x"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s;
}

TEST_P(ExecutorModeTest, RefEdgesReachTheVariableAndStatePersists) {
  GraphDef g;
  AddNode(&g, "counter", "TVar");
  AddConst(&g, "one", 1);
  AddNode(&g, "incr", "TAssignAdd", {"counter", "one"});
  AddNode(&g, "plus_ten", "TAdd", {"counter", "ten"});
  AddConst(&g, "ten", 10);
  auto session = MakeSession(g, GetParam());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"incr"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 1.0f);
  ASSERT_TRUE(session->Run({}, {"incr"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
  // A non-ref consumer reads the current value.
  ASSERT_TRUE(session->Run({}, {"plus_ten", "counter"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 12.0f);
  EXPECT_EQ(out[1].scalar<float>(), 2.0f);
}

TEST(ExecutorTest, ConcurrentRunsOfOnePlanAreIndependent) {
  // A wide graph: sum_k (x + c_k) for 16 branches, run from 8 threads with different feeds.
  GraphDef g;
  std::vector<std::string> branches;
  for (int k = 0; k < 16; ++k) {
    AddConst(&g, "c" + std::to_string(k), static_cast<float>(k));
    AddNode(&g, "b" + std::to_string(k), "TAdd", {"x", "c" + std::to_string(k)});
    branches.push_back("b" + std::to_string(k));
  }
  AddConst(&g, "x", 0);
  AddNode(&g, "total", "TAdd", branches);
  auto session = MakeSession(g, 4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::vector<Tensor> out;
        const float x = static_cast<float>(t * 100 + i);
        absl::Status s = session->Run({{"x:0", Tensor::Scalar<float>(x)}}, {"total"}, {}, &out);
        if (!s.ok() || out[0].scalar<float>() != 16 * x + 120) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tensord

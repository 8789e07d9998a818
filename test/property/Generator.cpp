//===- Generator.cpp - random well-typed .arr programs and their JAX twins ===//

#include "test/property/Generator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

using namespace vmapc::property;

namespace {

enum class DT { F32, I32, Bool };
using Shape = std::vector<int64_t>;

/// One rounding of f32 (2^-24), the relative error allowed per
/// transcendental function, the error budget of an output.
constexpr double kU = 6e-8;
constexpr double kT = 5e-7;
constexpr double kOutputErr = 2.5e-7;
constexpr double kMaxF32 = 1e6;
constexpr double kMaxI32 = 1 << 20;
/// Bits 0..15 of a dependence mask are a function's parameters; loop carries
/// use placeholder bits from 63 down, resolved when the loop ends.
constexpr int kFirstPlaceholder = 46;
/// Set on every value computed from a loop's result.
constexpr uint64_t kLoopBit = uint64_t(1) << 47;

struct Val {
  std::string name;
  DT dt = DT::F32;
  Shape shape;
  double bound = 1;      // |v| <= bound
  double err = 0;        // absolute error estimate; 0: computed exactly
  bool integral = false; // integer-valued (f32 or i32)
  bool nonzero = false;  // i32: never 0
  bool weak = false;     // a literal array, weakly typed
  /// The result of an `x.at[...]` update (or a copy of one: an op's result
  /// that starts from its operand, a call's result); see `at_output_first`.
  bool scattered = false;
  uint64_t dep = 0; // parameters (and carries) it depends on
  int uses = 0;     // operands of later statements
  /// The values of its function it was computed from, transitively.
  std::set<std::string> from;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  bool exact() const { return err == 0; }
  bool numeric() const { return dt != DT::Bool; }
};

const char *dtName(DT dt) {
  return dt == DT::F32 ? "f32" : dt == DT::I32 ? "i32" : "bool";
}
const char *jdt(DT dt) {
  return dt == DT::F32   ? "jnp.float32"
         : dt == DT::I32 ? "jnp.int32"
                         : "jnp.bool_";
}
std::string typeText(DT dt, const Shape &shape) {
  std::string s = dtName(dt);
  if (shape.empty())
    return s;
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
std::string tupleText(const Shape &shape) {
  if (shape.size() == 1)
    return "(" + std::to_string(shape[0]) + ",)";
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}
std::string fmtFloat(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e7)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
bool isPow2(double v) {
  int e;
  return v != 0 && std::frexp(std::fabs(v), &e) == 0.5;
}

/// numpy broadcasting of two shapes.
bool broadcast(const Shape &a, const Shape &b, Shape &out) {
  size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return false;
    out[r - 1 - i] = std::max(da, db);
  }
  return true;
}
/// Whether `from` broadcasts to exactly `to` (numpy broadcast_to).
bool broadcastsTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != t && f != 1)
      return false;
  }
  return true;
}

const std::vector<std::string> kOpTags = {"add",
                                          "sub",
                                          "mul",
                                          "div",
                                          "neg",
                                          "lt",
                                          "le",
                                          "gt",
                                          "ge",
                                          "eq",
                                          "ne",
                                          "and",
                                          "or",
                                          "not",
                                          "abs",
                                          "sign",
                                          "maximum",
                                          "minimum",
                                          "pow",
                                          "pow_op",
                                          "where",
                                          "exp",
                                          "log",
                                          "tanh",
                                          "sqrt",
                                          "cast_f32",
                                          "cast_i32",
                                          "sum",
                                          "max",
                                          "min",
                                          "mean",
                                          "argmin",
                                          "argmax",
                                          "matmul",
                                          "transpose",
                                          "dot_T",
                                          "reshape",
                                          "broadcast_to",
                                          "concat",
                                          "slice",
                                          "index",
                                          "iota",
                                          "literal_array",
                                          "zeros",
                                          "ones",
                                          "tuple",
                                          "for",
                                          "nested_for",
                                          "call",
                                          "vmap",
                                          "named_map",
                                          "nested_vmap_inline",
                                          "i32_div",
                                          "pow_int_exp",
                                          "dup_output",
                                          "abs_i32",
                                          "slice_prefix",
                                          "cross_carry",
                                          "shared_carry",
                                          "init_as_const",
                                          "loop_out_none",
                                          "loop_multi_launch",
                                          "init_reuse",
                                          "const_init",
                                          "index_computed",
                                          "index_pair",
                                          "index_col",
                                          "index_mixed",
                                          "index_loop",
                                          "take_fill",
                                          "take_clip",
                                          "take_flat",
                                          "at_set",
                                          "at_add",
                                          "at_mul",
                                          "at_min",
                                          "at_max",
                                          "at_array",
                                          "at_slice",
                                          "at_literal",
                                          "at_nested",
                                          "at_dup",
                                          "at_bool",
                                          "at_carry",
                                          "at_from_self",
                                          "at_scalar_accumulate",
                                          "gather_bool",
                                          "sin",
                                          "cos",
                                          "log1p",
                                          "expm1",
                                          "erf",
                                          "floor",
                                          "ceil",
                                          "round",
                                          "relu",
                                          "sigmoid",
                                          "softplus",
                                          "clip",
                                          "softmax",
                                          "log_softmax",
                                          "logsumexp",
                                          "any",
                                          "all",
                                          "sum_bool",
                                          "keepdims",
                                          "newaxis",
                                          "at_output_first"};
const std::vector<std::string> kStructuralTags = {"in_pos",
                                                  "in_neg",
                                                  "in_none",
                                                  "out_pos",
                                                  "out_neg",
                                                  "out_none",
                                                  "depth1",
                                                  "depth2",
                                                  "depth3",
                                                  "B1",
                                                  "N0",
                                                  "scalar_mapped",
                                                  "gather_operand",
                                                  "gather_indices",
                                                  "gather_both",
                                                  "scatter_operand",
                                                  "scatter_indices",
                                                  "scatter_both",
                                                  "scatter_updates"};

/// Features switched off by default: forms the compiler fails on (README.md,
/// "Switches", has the reproducer of each). Empty: every switch was off
/// while the compiler failed on it and is fixed.
const std::vector<std::string> kDefaultDisabled = {};

/// Loop carries' placeholder bits (their batching is known only after the
/// loop's fixpoint).
constexpr uint64_t kPlaceholderBits =
    ((uint64_t(1) << (kFirstPlaceholder + 1)) - 1) & ~uint64_t(0xFFFF);

/// An index operand written inline: a computed scalar, an array of indices.
struct Index {
  std::string arr, py; // its text in .arr and in JAX
  Shape shape;         // {} for a scalar
  double bound = 0;    // |index| <= bound
  uint64_t dep = 0;
  bool loop = false; // reads a loop index
  bool dup = false;  // a literal array with a repeated index
};

/// An `x.at[...].kind(v)`: its text and what it makes of x.
struct Update {
  std::string arr, py;
  Val result;
};

enum class Batching { No, Yes, Unknown };

struct Scope {
  std::vector<Val> vals;
  std::string arr, py;
  int arrIndent = 1, pyIndent = 1;
  int depth = 1;     // vmap depth at which this function runs
  int callLevel = 0; // helper nesting
  int loopLevel = 0;
  size_t bodyStart = 0; // first value defined in the innermost loop body
  /// Dependence bits of the values batched by this function's own vmap
  /// level (its mapped parameters; for a helper called without vmap, the
  /// parameters whose arguments are batched), and of those that may or may
  /// not be (loop carries, arguments that depend on them).
  uint64_t batched = 0, unknown = 0;
  std::string arrPad() const { return std::string(2 * arrIndent, ' '); }
  std::string pyPad() const { return std::string(4 * pyIndent, ' '); }
};

struct FnResult {
  std::string name;
  std::vector<Val> params;
  std::vector<Val> results; // dep over param bits
};

class Gen {
public:
  Gen(uint64_t seed, std::string prefix, const Features &features)
      : rng(seed), prefix(std::move(prefix)), features(features) {}

  Program run(uint64_t seed);

private:
  std::mt19937_64 rng;
  std::string prefix;
  const Features &features;
  std::map<std::string, int> tags;
  std::string moduleArr, modulePy;
  int counter = 0, fnCounter = 0, mapCounter = 0, loopCounter = 0;
  int placeholder = kFirstPlaceholder;
  int maxDepth = 1;
  int functions = 0;
  size_t logicTurn = 0;

  // Randomness.
  int64_t rnd(int64_t n) {
    return n <= 1 ? 0 : std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + rnd(hi - lo + 1); }
  bool chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
  }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[rnd(static_cast<int64_t>(v.size()))];
  }
  bool on(const std::string &tag) const { return features.on(tag); }
  void tag(const std::string &t) { ++tags[t]; }
  std::string fresh(const char *base = "v") {
    return base + std::to_string(counter++);
  }

  std::optional<Val> pickVal(const Scope &s,
                             const std::function<bool(const Val &)> &pred,
                             bool preferRecent = true) {
    std::vector<size_t> c;
    for (size_t i = 0; i < s.vals.size(); ++i)
      if (pred(s.vals[i]) && !avoided(s.vals[i]))
        c.push_back(i);
    if (c.empty())
      return std::nullopt;
    // Prefer unused values, then recent ones: chains of ops, every value
    // used (the compiler drops dead code; the oracle would still run it).
    std::vector<size_t> unused;
    for (size_t i : c)
      if (s.vals[i].uses == 0)
        unused.push_back(i);
    if (!unused.empty() && chance(0.6))
      return s.vals[pick(unused)];
    if (preferRecent && chance(0.5))
      return s.vals[c[c.size() - 1 - rnd(std::min<int64_t>(3, c.size()))]];
    return s.vals[pick(c)];
  }

  /// Values never picked, nor any value computed from them (`at_from_self`
  /// off: an update's index and value).
  std::set<std::string> avoid;
  bool avoided(const Val &v) const {
    if (avoid.empty())
      return false;
    if (avoid.count(v.name))
      return true;
    for (const std::string &f : v.from)
      if (avoid.count(f))
        return true;
    return false;
  }

  /// The names in `text`.
  static std::set<std::string> namesIn(const std::string &text) {
    std::set<std::string> names;
    std::string cur;
    for (char ch : text + " ") {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
        cur += ch;
      } else if (!cur.empty()) {
        names.insert(cur);
        cur.clear();
      }
    }
    return names;
  }

  /// Counts a use of every value of `s` named in `text`.
  static void markUsed(Scope &s, const std::string &text) {
    std::set<std::string> names = namesIn(text);
    for (Val &v : s.vals)
      if (names.count(v.name))
        ++v.uses;
  }

  /// The values of `s` that `text` reads, and what they were computed from.
  static std::set<std::string> fromOf(const Scope &s, const std::string &text) {
    std::set<std::string> names = namesIn(text), from;
    for (const Val &v : s.vals)
      if (names.count(v.name)) {
        from.insert(v.name);
        from.insert(v.from.begin(), v.from.end());
      }
    return from;
  }

  Val emit(Scope &s, const std::string &arrExpr, const std::string &pyExpr,
           Val v) {
    std::set<std::string> from = fromOf(s, arrExpr);
    v.from.insert(from.begin(), from.end());
    markUsed(s, arrExpr);
    v.name = fresh();
    v.uses = 0;
    s.arr += s.arrPad() + "let " + v.name + " = " + arrExpr + ";\n";
    s.py += s.pyPad() + v.name + " = " + pyExpr + "\n";
    s.vals.push_back(v);
    return v;
  }

  // Ops: each returns false when it cannot apply here.
  bool opArith(Scope &s);
  bool opDiv(Scope &s);
  bool opNeg(Scope &s);
  bool opCompare(Scope &s);
  bool opLogic(Scope &s);
  bool opUnary(Scope &s);
  bool opMath(Scope &s);
  bool opRound(Scope &s);
  bool opNN(Scope &s);
  bool opSoftmax(Scope &s);
  bool opAnyAll(Scope &s);
  bool opNewAxis(Scope &s);
  /// The axis= of a reduction over rank `r` (>= 1): the axes reduced (sorted
  /// by nothing), their .arr and JAX text (empty: no axis= written, which
  /// reduces every axis, or the last one when `defaultLast`).
  void reduceAxes(int64_t r, bool defaultLast, std::vector<int64_t> &axes,
                  std::string &axisArr, std::string &axisPy);
  /// `keepdims=true` a quarter of the time (when on): appends it to the
  /// texts and returns whether it did.
  bool maybeKeepdims(std::string &axisArr, std::string &axisPy);
  /// The shape of a reduction of `shape` over `axes` (kept as 1 with
  /// keepdims) and the number of elements reduced into each result.
  static Shape reducedShape(const Shape &shape,
                            const std::vector<int64_t> &axes, bool keepdims,
                            int64_t &n);
  bool opMaxMin(Scope &s);
  bool opPow(Scope &s);
  bool opWhere(Scope &s);
  bool opCast(Scope &s);
  bool opReduce(Scope &s);
  bool opArg(Scope &s);
  bool opMatmul(Scope &s);
  bool opTranspose(Scope &s);
  bool opReshape(Scope &s);
  bool opBroadcastTo(Scope &s);
  bool opConcat(Scope &s);
  bool opSlice(Scope &s);
  bool opIota(Scope &s);
  bool opLiteralArray(Scope &s);
  bool opZerosOnes(Scope &s);
  bool opCall(Scope &s);
  bool opVmap(Scope &s);
  bool opFor(Scope &s);
  bool opForImpl(Scope &s);
  // Indexing: x[i] (computed), take, x.at[...] ("indexing" below).
  bool opIndex(Scope &s);
  bool opTake(Scope &s);
  bool opAt(Scope &s);
  std::optional<Index> scalarIndex(Scope &s, uint64_t forbid = 0);
  std::optional<Index> arrayIndex(Scope &s, int64_t size, int maxRank,
                                  uint64_t forbid = 0);
  std::optional<Update> update(Scope &s, const Val &x, const Val *init,
                               int64_t trips, uint64_t forbid);
  Batching batching(const Scope &s, uint64_t dep) const;
  std::optional<Val> indexedOperand(Scope &s, bool gather);
  /// Set while an unbatched operand looks for batched indices (for a
  /// batched value and unbatched indices): their sources first.
  bool wantBatchedIndex = false, wantBatchedValue = false;
  std::optional<Val>
  pickIndexSource(Scope &s, const std::function<bool(const Val &)> &pred);
  void tagGather(const Scope &s, uint64_t operand, uint64_t indices);
  void tagScatter(const Scope &s, uint64_t operand, uint64_t indices,
                  uint64_t updates);

  void statement(Scope &s);
  std::optional<Val> produce(Scope &s, DT dt, const Shape &shape,
                             bool needExact, int fuel = 3, uint64_t forbid = 0);
  /// A literal operand for `a` (weak): its text and properties.
  Val literal(DT dt, bool nonzero = false);

  Shape randomShape(int maxRank);
  FnResult genFunction(const std::vector<Val> &params, int depth, int callLevel,
                       uint64_t mappedMask, bool isExport, int statements,
                       uint64_t batchedMask, uint64_t unknownMask = 0);
  std::string axisText(std::optional<int64_t> axis, int64_t rank, bool in);
  std::string axesText(const std::vector<std::string> &entries, bool py,
                       bool alwaysTuple);
  std::vector<Val> chooseOutputs(Scope &s, uint64_t mappedMask, int count,
                                 bool isExport);
};

Val Gen::literal(DT dt, bool nonzero) {
  Val v;
  v.dt = dt;
  v.weak = true;
  double x;
  if (dt == DT::F32) {
    static const std::vector<double> lits = {0.5,  2.0,  -1.5, 3.0,
                                             0.25, -2.0, 1.0,  -0.75};
    x = pick(lits);
    v.name = fmtFloat(x);
  } else {
    static const std::vector<int64_t> lits = {1, 2, 3, -2, 5, -1, 0, 4};
    int64_t k;
    do
      k = pick(lits);
    while (nonzero && k == 0);
    x = static_cast<double>(k);
    v.name = std::to_string(k);
  }
  v.bound = std::fabs(x);
  v.integral = x == std::floor(x);
  v.nonzero = x != 0;
  return v;
}

Shape Gen::randomShape(int maxRank) {
  static const std::vector<int64_t> sizes = {1, 2, 3, 3, 4, 4, 5};
  Shape s(rnd(maxRank + 1));
  for (int64_t &d : s)
    d = pick(sizes);
  return s;
}

// ---- elementwise ---------------------------------------------------------

bool Gen::opArith(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"add", "sub", "mul"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) { return v.numeric(); });
  if (!a)
    return false;
  Val b;
  bool lit = !a->weak && chance(0.3);
  if (lit) {
    b = literal(a->dt);
  } else {
    Shape out;
    auto bb = pickVal(s, [&](const Val &v) {
      return v.dt == a->dt && !(a->weak && v.weak) &&
             broadcast(a->shape, v.shape, out);
    });
    if (!bb)
      return false;
    b = *bb;
  }
  Shape shape;
  broadcast(a->shape, b.shape, shape);
  Val r;
  r.dt = a->dt;
  r.shape = shape;
  r.dep = a->dep | b.dep;
  r.integral = a->integral && b.integral;
  if (op == "mul") {
    r.bound = a->bound * b.bound;
    bool pow2Lit = lit && isPow2(std::stod(b.name));
    bool exact = (r.integral && r.bound < (1 << 24)) || (pow2Lit && a->exact());
    r.err = exact ? 0
                  : a->err * b.bound + b.err * a->bound + a->err * b.err +
                        kU * r.bound;
    r.nonzero = a->nonzero && b.nonzero;
  } else {
    r.bound = a->bound + b.bound;
    bool exact = r.integral && r.bound < (1 << 24);
    r.err = exact ? 0 : a->err + b.err + kU * r.bound;
  }
  if (r.dt == DT::I32) {
    if (r.bound > kMaxI32)
      return false;
    r.err = 0;
  } else if (r.bound > kMaxF32) {
    return false;
  }
  const char *sym = op == "add" ? " + " : op == "sub" ? " - " : " * ";
  std::string lhs = a->name, rhs = b.name;
  if (lit && chance(0.5))
    std::swap(lhs, rhs);
  std::string e = "(" + lhs + sym + rhs + ")";
  emit(s, e, e, r);
  tag(op);
  return true;
}

bool Gen::opDiv(Scope &s) {
  if (!on("div"))
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.numeric() && !v.weak; });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  if (a->dt == DT::I32) {
    if (!on("i32_div"))
      return false;
    Val b;
    Shape out;
    auto bb = pickVal(s, [&](const Val &v) {
      return v.dt == DT::I32 && v.nonzero && broadcast(a->shape, v.shape, out);
    });
    if (bb && chance(0.7))
      b = *bb;
    else
      b = literal(DT::I32, /*nonzero=*/true);
    broadcast(a->shape, b.shape, r.shape);
    r.dep = a->dep | b.dep;
    r.nonzero = false;
    r.integral = true;
    emit(s, "(" + a->name + " / " + b.name + ")",
         "_idiv(" + a->name + ", " + b.name + ")", r);
    tag("div");
    tag("i32_div");
    return true;
  }
  Shape out;
  auto bb = pickVal(s, [&](const Val &v) {
    return v.dt == DT::F32 && broadcast(a->shape, v.shape, out);
  });
  if (!bb || chance(0.3)) {
    static const std::vector<double> lits = {2.0, -4.0, 0.5, 3.0};
    double d = pick(lits);
    r.bound = a->bound / std::fabs(d);
    r.err =
        (isPow2(d) && a->exact()) ? 0 : a->err / std::fabs(d) + kU * r.bound;
    r.integral = false;
    std::string e = "(" + a->name + " / " + fmtFloat(d) + ")";
    emit(s, e, e, r);
    tag("div");
    return true;
  }
  const Val &b = *bb;
  broadcast(a->shape, b.shape, r.shape);
  r.dep = a->dep | b.dep;
  r.integral = false;
  r.bound = a->bound;
  r.err = a->err + 2 * b.err * a->bound + 3 * kU * a->bound;
  if (on("abs") && chance(0.6)) {
    emit(s, "(" + a->name + " / (abs(" + b.name + ") + 1.0))",
         "(" + a->name + " / (jnp.abs(" + b.name + ") + 1.0))", r);
    tag("abs");
  } else {
    std::string e =
        "(" + a->name + " / ((" + b.name + " * " + b.name + ") + 1.0))";
    emit(s, e, e, r);
    tag("mul");
  }
  tag("div");
  tag("add");
  return true;
}

bool Gen::opNeg(Scope &s) {
  if (!on("neg"))
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.numeric(); });
  if (!a)
    return false;
  Val r = *a; // -[1, 2] is a literal array still (weak)
  emit(s, "(-" + a->name + ")", "(-" + a->name + ")", r);
  tag("neg");
  return true;
}

bool Gen::opCompare(Scope &s) {
  static const std::vector<std::pair<std::string, std::string>> ops = {
      {"lt", " < "},  {"le", " <= "}, {"gt", " > "},
      {"ge", " >= "}, {"eq", " == "}, {"ne", " != "}};
  std::vector<std::pair<std::string, std::string>> avail;
  for (const auto &o : ops)
    if (on(o.first))
      avail.push_back(o);
  if (avail.empty())
    return false;
  auto op = pick(avail);
  auto a = pickVal(s, [](const Val &v) { return v.numeric() && v.exact(); });
  if (!a)
    return false;
  Val b;
  Shape out;
  auto bb = pickVal(s, [&](const Val &v) {
    return v.dt == a->dt && v.exact() && !(a->weak && v.weak) &&
           broadcast(a->shape, v.shape, out);
  });
  if (bb && (chance(0.7) || a->weak)) {
    b = *bb;
  } else if (a->weak) {
    return false;
  } else {
    b = literal(a->dt);
    if (a->dt == DT::F32) // exact, and not a likely tie with an input
      b.name = pick(std::vector<std::string>{"0.0", "0.5", "-0.25"});
  }
  Val r;
  r.dt = DT::Bool;
  broadcast(a->shape, b.shape, r.shape);
  r.dep = a->dep | b.dep;
  r.bound = 1;
  r.integral = true;
  std::string e = "(" + a->name + op.second + b.name + ")";
  emit(s, e, e, r);
  tag(op.first);
  return true;
}

bool Gen::opLogic(Scope &s) {
  auto a = pickVal(s, [](const Val &v) { return v.dt == DT::Bool; });
  if (!a)
    return false;
  std::vector<std::string> ops;
  for (const char *op : {"and", "or", "not"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  // In turn, so that a program with bool values has each of them.
  std::string op = ops[logicTurn++ % ops.size()];
  Val r = *a;
  r.weak = false;
  if (op == "not") {
    emit(s, "(not " + a->name + ")", "jnp.logical_not(" + a->name + ")", r);
  } else {
    Shape out;
    auto b = pickVal(s, [&](const Val &v) {
      return v.dt == DT::Bool && v.name != a->name &&
             broadcast(a->shape, v.shape, out);
    });
    if (!b)
      return false;
    broadcast(a->shape, b->shape, r.shape);
    r.dep = a->dep | b->dep;
    emit(s, "(" + a->name + " " + op + " " + b->name + ")",
         "jnp.logical_" + op + "(" + a->name + ", " + b->name + ")", r);
  }
  tag(op);
  return true;
}

bool Gen::opUnary(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"abs", "sign", "exp", "log", "tanh", "sqrt"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  bool intOk = (op == "abs" && on("abs_i32")) || op == "sign";
  auto a = pickVal(s, [&](const Val &v) {
    return (v.dt == DT::F32 || (intOk && v.dt == DT::I32)) &&
           (op != "sign" || v.exact());
  });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  const std::string &x = a->name;
  if (op == "abs") {
    emit(s, "abs(" + x + ")", "jnp.abs(" + x + ")", r);
    if (a->dt == DT::I32)
      tag("abs_i32");
  } else if (op == "sign") {
    r.bound = 1;
    r.integral = true;
    emit(s, "sign(" + x + ")", "jnp.sign(" + x + ")", r);
  } else if (op == "tanh") {
    r.bound = std::min(1.0, a->bound);
    r.integral = false;
    r.err = a->err + kT * r.bound;
    emit(s, "tanh(" + x + ")", "jnp.tanh(" + x + ")", r);
  } else if (op == "exp") {
    r.integral = false;
    if (a->bound <= 3) {
      r.bound = std::exp(a->bound);
      r.err = r.bound * (a->err + kT);
      emit(s, "exp(" + x + ")", "jnp.exp(" + x + ")", r);
    } else {
      if (!on("tanh"))
        return false;
      r.bound = std::exp(1.0);
      r.err = r.bound * (a->err + 2 * kT);
      emit(s, "exp(tanh(" + x + "))", "jnp.exp(jnp.tanh(" + x + "))", r);
      tag("tanh");
    }
  } else if (op == "log" || op == "sqrt") {
    r.integral = false;
    bool useAbs = on("abs") && chance(0.6);
    double inner = useAbs ? a->bound + 1 : a->bound * a->bound + 1;
    if (inner > kMaxF32)
      return false;
    std::string arg =
        useAbs ? "abs(" + x + ") + 1.0" : "(" + x + " * " + x + ") + 1.0";
    std::string pyArg = useAbs ? "jnp.abs(" + x + ") + 1.0" : arg;
    if (op == "log") {
      r.bound = std::log(inner);
      r.err = a->err + kU * inner + kT * r.bound;
    } else {
      r.bound = std::sqrt(inner);
      r.err = a->err + kU * inner + kT * r.bound;
    }
    emit(s, op + "(" + arg + ")", "jnp." + op + "(" + pyArg + ")", r);
    tag(useAbs ? "abs" : "mul");
    tag("add");
  }
  tag(op);
  return true;
}

/// sin cos log1p expm1 erf (f32): bounded arguments, log1p's above -1.
bool Gen::opMath(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"sin", "cos", "log1p", "expm1", "erf"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) { return v.dt == DT::F32; });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  r.integral = false;
  r.nonzero = false;
  const std::string &x = a->name;
  // An argument through tanh first (|tanh(x)| <= 1): its text, bound, error.
  std::string arg = x, pyArg = x;
  double ab = a->bound, ae = a->err;
  auto throughTanh = [&]() {
    if (!on("tanh"))
      return false;
    arg = "tanh(" + x + ")";
    pyArg = "jnp.tanh(" + x + ")";
    ab = std::min(1.0, a->bound);
    ae = a->err + kT * ab;
    tag("tanh");
    return true;
  };
  if (op == "sin" || op == "cos") {
    if (ab > 32 && !throughTanh())
      return false;
    r.bound = op == "sin" ? std::min(1.0, ab) : 1.0;
    r.err = ae + kT + kU * ab;
    emit(s, op + "(" + arg + ")", "jnp." + op + "(" + pyArg + ")", r);
  } else if (op == "log1p") {
    if (on("abs") && chance(0.5)) {
      // log1p(abs(x)): the argument >= 0.
      r.bound = std::log1p(ab);
      r.err = ae + kU + kT * r.bound;
      emit(s, "log1p(abs(" + x + "))", "jnp.log1p(jnp.abs(" + x + "))", r);
      tag("abs");
    } else {
      // log1p(tanh(x) * 0.5): the argument in [-0.5, 0.5].
      if (!throughTanh())
        return false;
      double inner = 0.5 * ab;
      r.bound = -std::log1p(-inner);
      r.err = 2 * (0.5 * ae) + kT * r.bound;
      emit(s, "log1p(" + arg + " * 0.5)", "jnp.log1p(" + pyArg + " * 0.5)", r);
      tag("mul");
    }
  } else if (op == "expm1") {
    if (ab > 3 && !throughTanh())
      return false;
    r.bound = std::expm1(ab);
    r.err = std::exp(ab) * ae + kT * r.bound + kU;
    emit(s, "expm1(" + arg + ")", "jnp.expm1(" + pyArg + ")", r);
  } else { // erf: |erf'| <= 2 / sqrt(pi)
    r.bound = std::min(1.0, 1.13 * ab);
    r.err = 1.13 * ae + 2 * kT * r.bound + kU;
    emit(s, "erf(" + arg + ")", "lax.erf(" + pyArg + ")", r);
  }
  tag(op);
  return true;
}

/// floor ceil round (f32) of exact values only (a rounding of an inexact
/// value could flip between implementations); of an integral value halved
/// (`round(x * 0.5)`: ties, half to even) most of the time.
bool Gen::opRound(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"floor", "ceil", "round"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) {
    return v.dt == DT::F32 && !v.weak && v.exact() && v.bound < (1 << 22);
  });
  if (!a)
    return false;
  Val r = *a;
  r.integral = true;
  r.nonzero = false;
  r.err = 0;
  std::string arg = a->name;
  double b = a->bound;
  if (a->integral && on("mul") && chance(0.7)) {
    arg = a->name + " * 0.5";
    b *= 0.5;
    tag("mul");
  }
  r.bound = std::ceil(b);
  emit(s, op + "(" + arg + ")", "jnp." + op + "(" + arg + ")", r);
  tag(op);
  return true;
}

/// relu (f32/i32), sigmoid, softplus (f32), clip(x, lo, hi).
bool Gen::opNN(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"relu", "sigmoid", "softplus", "clip"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  bool intOk = op == "relu" || op == "clip";
  auto a = pickVal(s, [&](const Val &v) {
    return !v.weak && (v.dt == DT::F32 || (intOk && v.dt == DT::I32));
  });
  if (!a)
    return false;
  Val r = *a;
  r.nonzero = false;
  const std::string &x = a->name;
  if (op == "relu") {
    emit(s, "relu(" + x + ")", "jax.nn.relu(" + x + ")", r);
  } else if (op == "sigmoid") {
    r.integral = false;
    r.bound = 1;
    r.err = 0.25 * a->err + kT;
    emit(s, "sigmoid(" + x + ")", "jax.nn.sigmoid(" + x + ")", r);
  } else if (op == "softplus") {
    r.integral = false;
    r.bound = a->bound + std::log(2.0);
    if (r.bound > kMaxF32)
      return false;
    r.err = a->err + 2 * kT + kU * r.bound;
    emit(s, "softplus(" + x + ")", "jax.nn.softplus(" + x + ")", r);
  } else {
    // lo and hi literals (lo > hi too: every element is hi), or lo a value
    // broadcasting with x.
    bool f = a->dt == DT::F32;
    static const std::vector<std::pair<double, double>> flits = {
        {-0.5, 0.5}, {0.0, 2.0}, {-1.5, 0.25}, {1.0, -1.0}};
    static const std::vector<std::pair<int, int>> ilits = {
        {-3, 5}, {0, 10}, {2, 1}, {-20, -4}};
    std::string lo, hi;
    double lb, hb;
    if (f) {
      auto p = pick(flits);
      lo = fmtFloat(p.first), hi = fmtFloat(p.second);
      lb = std::fabs(p.first), hb = std::fabs(p.second);
    } else {
      auto p = pick(ilits);
      lo = std::to_string(p.first), hi = std::to_string(p.second);
      lb = std::abs(p.first), hb = std::abs(p.second);
    }
    r.bound = std::max({a->bound, lb, hb});
    r.integral = a->integral && !f;
    Shape out;
    auto v = pickVal(s, [&](const Val &c) {
      return c.dt == a->dt && !c.weak && c.name != a->name &&
             broadcast(a->shape, c.shape, out);
    });
    if (v && chance(0.4)) {
      lo = v->name;
      broadcast(a->shape, v->shape, r.shape);
      r.dep |= v->dep;
      r.bound = std::max({a->bound, v->bound, hb});
      r.err = std::max(a->err, v->err);
      r.integral = a->integral && v->integral && !f;
    }
    if (f) // a float literal: integral only if x and lo are and hi is
      r.integral = false;
    emit(s, "clip(" + x + ", " + lo + ", " + hi + ")",
         "jnp.clip(" + x + ", " + lo + ", " + hi + ")", r);
  }
  tag(op);
  return true;
}

/// `none` in an index: new axes of size 1 (`x[:, none]`, `x[none]`).
bool Gen::opNewAxis(Scope &s) {
  if (!on("newaxis"))
    return false;
  auto a = pickVal(s, [](const Val &v) { return !v.weak && v.rank() <= 2; });
  if (!a)
    return false;
  int64_t r = a->rank();
  int64_t k = range(1, 3 - r);
  // Entries: r colons and k nones, shuffled.
  std::vector<bool> isNone(r + k, false);
  for (int64_t i = 0; i < k; ++i)
    isNone[i] = true;
  std::shuffle(isNone.begin(), isNone.end(), rng);
  // Trailing colons may be left out (missing trailing indices are `:`).
  size_t written = isNone.size();
  if (chance(0.5))
    while (written > 0 && !isNone[written - 1])
      --written;
  std::string arr = a->name + "[", py = a->name + "[";
  Val v = *a;
  v.shape.clear();
  int64_t d = 0;
  for (size_t i = 0; i < isNone.size(); ++i) {
    if (isNone[i])
      v.shape.push_back(1);
    else
      v.shape.push_back(a->shape[d++]);
    if (i < written) {
      arr += std::string(i ? ", " : "") + (isNone[i] ? "none" : ":");
      py += std::string(i ? ", " : "") + (isNone[i] ? "None" : ":");
    }
  }
  emit(s, arr + "]", py + "]", v);
  tag("newaxis");
  return true;
}

bool Gen::opMaxMin(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"maximum", "minimum"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) { return v.numeric(); });
  if (!a)
    return false;
  Val b;
  Shape out;
  auto bb = pickVal(s, [&](const Val &v) {
    return v.dt == a->dt && !(a->weak && v.weak) && v.name != a->name &&
           broadcast(a->shape, v.shape, out);
  });
  if (bb && (chance(0.75) || a->weak))
    b = *bb;
  else if (a->weak)
    return false;
  else
    b = literal(a->dt);
  Val r = *a;
  r.weak = false;
  broadcast(a->shape, b.shape, r.shape);
  r.dep = a->dep | b.dep;
  r.bound = std::max(a->bound, b.bound);
  r.err = std::max(a->err, b.err);
  r.integral = a->integral && b.integral;
  r.nonzero = false;
  std::string x = a->name, y = b.name;
  if (chance(0.5))
    std::swap(x, y);
  emit(s, op + "(" + x + ", " + y + ")", "jnp." + op + "(" + x + ", " + y + ")",
       r);
  tag(op);
  return true;
}

bool Gen::opPow(Scope &s) {
  bool fn = on("pow"), opForm = on("pow_op");
  if (!fn && !opForm)
    return false;
  bool useFn = fn && (!opForm || chance(0.5));
  auto a = pickVal(s, [](const Val &v) { return v.dt == DT::F32; });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  r.integral = false;
  auto spell = [&](const std::string &base, const std::string &pyBase,
                   const std::string &e) {
    if (useFn)
      emit(s, "pow(" + base + ", " + e + ")",
           "jnp.power(" + pyBase + ", " + e + ")", r);
    else
      emit(s, "(" + base + " ** " + e + ")", "(" + pyBase + " ** " + e + ")",
           r);
    tag(useFn ? "pow" : "pow_op");
  };
  if (on("pow_int_exp") && chance(0.25)) {
    // A negative base with an integral exponent (C's powf).
    if (a->bound > 100)
      return false;
    r.bound = a->bound * a->bound;
    r.err = 2 * a->bound * a->err + 4 * kT * r.bound;
    spell(a->name, a->name, "2.0");
    tag("pow_int_exp");
    return true;
  }
  bool useAbs = on("abs") && chance(0.6);
  double base = useAbs ? a->bound + 1 : a->bound * a->bound + 1;
  if (base > 4)
    return false;
  std::string b = useAbs ? "(abs(" + a->name + ") + 1.0)"
                         : "((" + a->name + " * " + a->name + ") + 1.0)";
  std::string pb = useAbs ? "(jnp.abs(" + a->name + ") + 1.0)" : b;
  double baseErr = a->err * (useAbs ? 1 : 2 * a->bound) + kU * base;
  Shape out;
  auto e = pickVal(s, [&](const Val &v) {
    return v.dt == DT::F32 && v.bound <= 1.5 &&
           broadcast(a->shape, v.shape, out);
  });
  double eb, eErr = 0;
  std::string et;
  if (e && chance(0.6)) {
    eb = e->bound;
    eErr = e->err;
    et = e->name;
    broadcast(a->shape, e->shape, r.shape);
    r.dep = a->dep | e->dep;
  } else {
    static const std::vector<double> lits = {2.0, 0.5, -1.0, 1.5, 3.0};
    double l = pick(lits);
    eb = std::fabs(l);
    et = fmtFloat(l);
  }
  r.bound = std::pow(base, eb);
  r.err = eb * std::max(1.0, std::pow(base, eb - 1)) * baseErr +
          r.bound * std::log(base) * eErr +
          4 * kT * r.bound * (1 + eb * std::log(base));
  spell(b, pb, et);
  tag(useAbs ? "abs" : "mul");
  tag("add");
  return true;
}

bool Gen::opWhere(Scope &s) {
  if (!on("where"))
    return false;
  auto c = pickVal(s, [](const Val &v) { return v.dt == DT::Bool; });
  if (!c)
    return false;
  Shape out;
  auto a = pickVal(s, [&](const Val &v) {
    return v.name != c->name && broadcast(c->shape, v.shape, out);
  });
  if (!a)
    return false;
  Shape ca;
  broadcast(c->shape, a->shape, ca);
  Val b;
  auto bb = pickVal(s, [&](const Val &v) {
    return v.dt == a->dt && !(a->weak && v.weak) && v.name != a->name &&
           broadcast(ca, v.shape, out);
  });
  if (bb && (chance(0.7) || a->dt == DT::Bool || a->weak))
    b = *bb;
  else if (a->dt != DT::Bool && !a->weak)
    b = literal(a->dt);
  else
    return false;
  Val r = *a;
  r.weak = false;
  broadcast(ca, b.shape, r.shape);
  r.dep = c->dep | a->dep | b.dep;
  r.bound = std::max(a->bound, b.bound);
  r.err = std::max(a->err, b.err);
  r.integral = a->integral && b.integral;
  r.nonzero = a->nonzero && b.nonzero;
  std::string x = a->name, y = b.name;
  if (chance(0.5))
    std::swap(x, y);
  emit(s, "where(" + c->name + ", " + x + ", " + y + ")",
       "jnp.where(" + c->name + ", " + x + ", " + y + ")", r);
  tag("where");
  return true;
}

bool Gen::opCast(Scope &s) {
  bool toF = on("cast_f32"), toI = on("cast_i32");
  if (!toF && !toI)
    return false;
  bool f = toF && (!toI || chance(0.5));
  if (f) {
    auto a = pickVal(s, [](const Val &v) {
      return v.dt == DT::Bool || (v.dt == DT::I32 && v.bound < (1 << 24));
    });
    if (!a)
      return false;
    Val r = *a;
    r.weak = false;
    r.dt = DT::F32;
    r.integral = true;
    r.err = 0;
    emit(s, "f32(" + a->name + ")", a->name + ".astype(jnp.float32)", r);
    tag("cast_f32");
    return true;
  }
  auto a = pickVal(s, [](const Val &v) {
    return v.dt == DT::Bool || (v.dt == DT::F32 && v.exact() && v.bound < 1e5);
  });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  r.dt = DT::I32;
  r.integral = true;
  r.nonzero = false;
  if (a->dt == DT::F32 && !a->integral) {
    r.bound = std::floor(a->bound * 8);
    emit(s, "i32(" + a->name + " * 8.0)",
         "(" + a->name + " * 8.0).astype(jnp.int32)", r);
    tag("mul");
  } else {
    r.bound = std::floor(a->bound);
    emit(s, "i32(" + a->name + ")", a->name + ".astype(jnp.int32)", r);
  }
  tag("cast_i32");
  return true;
}

// ---- reductions ----------------------------------------------------------

void Gen::reduceAxes(int64_t r, bool defaultLast, std::vector<int64_t> &axes,
                     std::string &axisArr, std::string &axisPy) {
  axes.clear();
  axisArr.clear();
  axisPy.clear();
  int form = static_cast<int>(rnd(4));
  if (form == 0) { // no axis=
    if (defaultLast)
      axes.push_back(r - 1);
    else
      for (int64_t i = 0; i < r; ++i)
        axes.push_back(i);
  } else if (form == 1 && chance(0.3)) { // axis=none
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
    axisArr = ", axis=none";
    axisPy = ", axis=None";
  } else if (form <= 2 || r == 1) { // one axis
    int64_t k = rnd(r);
    axes.push_back(k);
    int64_t written = chance(0.4) ? k - r : k;
    axisArr = axisPy = ", axis=" + std::to_string(written);
  } else { // a tuple of axes
    std::vector<int64_t> all(r);
    for (int64_t i = 0; i < r; ++i)
      all[i] = i;
    std::shuffle(all.begin(), all.end(), rng);
    int64_t n = range(1, r);
    std::string t = "(";
    for (int64_t i = 0; i < n; ++i) {
      axes.push_back(all[i]);
      int64_t written = chance(0.3) ? all[i] - r : all[i];
      t += (i ? ", " : "") + std::to_string(written);
    }
    t += n == 1 ? ",)" : ")";
    axisArr = axisPy = ", axis=" + t;
  }
}

bool Gen::maybeKeepdims(std::string &axisArr, std::string &axisPy) {
  if (!on("keepdims") || !chance(0.25))
    return false;
  axisArr += ", keepdims=true";
  axisPy += ", keepdims=True";
  return true;
}

Shape Gen::reducedShape(const Shape &shape, const std::vector<int64_t> &axes,
                        bool keepdims, int64_t &n) {
  Shape out;
  n = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
      n *= shape[i];
      if (keepdims)
        out.push_back(1);
    } else {
      out.push_back(shape[i]);
    }
  }
  return out;
}

bool Gen::opReduce(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"sum", "max", "min", "mean"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [&](const Val &v) {
    return v.numeric() && v.rank() >= 1 && (op != "mean" || v.dt == DT::F32);
  });
  if (!a)
    return false;
  std::vector<int64_t> axes;
  std::string axisArr, axisPy;
  reduceAxes(a->rank(), false, axes, axisArr, axisPy);
  bool keep = maybeKeepdims(axisArr, axisPy);
  Val res = *a;
  res.weak = false;
  int64_t n;
  res.shape = reducedShape(a->shape, axes, keep, n);
  if (op == "sum") {
    res.bound = a->bound * n;
    res.nonzero = false;
    bool exact = a->integral && res.bound < (1 << 24) && a->exact();
    res.err = exact ? 0 : n * a->err + kU * n * res.bound;
    if (a->dt == DT::I32) {
      if (res.bound > kMaxI32)
        return false;
      res.err = 0;
    }
  } else if (op == "mean") {
    res.integral = false;
    res.err = a->err + kU * n * a->bound + 2 * kU * a->bound;
  }
  emit(s, op + "(" + a->name + axisArr + ")",
       "jnp." + op + "(" + a->name + axisPy + ")", res);
  tag(op);
  if (keep)
    tag("keepdims");
  return true;
}

/// any, all and sum over a bool array (sum counts the trues as i32).
bool Gen::opAnyAll(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"any", "all", "sum_bool"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(
      s, [](const Val &v) { return v.dt == DT::Bool && v.rank() >= 1; });
  if (!a)
    return false;
  std::vector<int64_t> axes;
  std::string axisArr, axisPy;
  reduceAxes(a->rank(), false, axes, axisArr, axisPy);
  bool keep = maybeKeepdims(axisArr, axisPy);
  Val r = *a;
  r.weak = false;
  int64_t n;
  r.shape = reducedShape(a->shape, axes, keep, n);
  r.err = 0;
  r.integral = true;
  if (op == "sum_bool") {
    r.dt = DT::I32;
    r.bound = static_cast<double>(n);
    r.nonzero = false;
    emit(s, "sum(" + a->name + axisArr + ")",
         "jnp.sum(" + a->name + axisPy + ", dtype=jnp.int32)", r);
    tag("sum");
  } else {
    r.bound = 1;
    emit(s, op + "(" + a->name + axisArr + ")",
         "jnp." + op + "(" + a->name + axisPy + ")", r);
  }
  tag(op);
  if (keep)
    tag("keepdims");
  return true;
}

/// softmax, log_softmax (axis= an integer, a tuple, none or left out: the
/// last) and logsumexp (every axis by default, keepdims=).
bool Gen::opSoftmax(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"softmax", "log_softmax", "logsumexp"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) {
    return v.dt == DT::F32 && !v.weak && v.rank() >= 1 && v.bound <= 100;
  });
  if (!a)
    return false;
  bool lse = op == "logsumexp";
  std::vector<int64_t> axes;
  std::string axisArr, axisPy;
  reduceAxes(a->rank(), !lse, axes, axisArr, axisPy);
  bool keep = lse && maybeKeepdims(axisArr, axisPy);
  Val r = *a;
  r.integral = false;
  r.nonzero = false;
  int64_t n;
  Shape red = reducedShape(a->shape, axes, keep, n);
  double b = a->bound, ln = std::log(static_cast<double>(n));
  // x - max(x): rounded once; exp of it: relative error kT plus that.
  double shiftErr = 2 * a->err + 4 * kU * b;
  double rel = shiftErr + kT;
  if (op == "softmax") {
    r.bound = 1;
    r.err = 2 * rel + n * kU + kU;
    emit(s, "softmax(" + a->name + axisArr + ")",
         "jax.nn.softmax(" + a->name + axisPy + ")", r);
  } else if (op == "log_softmax") {
    r.bound = 2 * b + ln;
    r.err = shiftErr + rel + n * kU + kT * ln + kU * r.bound;
    emit(s, "log_softmax(" + a->name + axisArr + ")",
         "jax.nn.log_softmax(" + a->name + axisPy + ")", r);
  } else {
    r.shape = red;
    r.bound = b + ln;
    r.err = a->err + rel + n * kU + kT * ln + kU * r.bound;
    emit(s, "logsumexp(" + a->name + axisArr + ")",
         "jax.scipy.special.logsumexp(" + a->name + axisPy + ")", r);
  }
  tag(op);
  if (keep)
    tag("keepdims");
  return true;
}

bool Gen::opArg(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"argmin", "argmax"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  auto a = pickVal(s, [](const Val &v) {
    return v.numeric() && v.exact() && v.rank() >= 1;
  });
  if (!a)
    return false;
  Val r;
  r.dt = DT::I32;
  r.dep = a->dep;
  r.integral = true;
  std::string axis;
  if (chance(0.5)) {
    r.bound = a->numel();
  } else {
    int64_t k = rnd(a->rank());
    r.bound = a->shape[k];
    r.shape = a->shape;
    r.shape.erase(r.shape.begin() + k);
    axis = ", axis=" + std::to_string(chance(0.4) ? k - a->rank() : k);
  }
  emit(s, op + "(" + a->name + axis + ")",
       "jnp." + op + "(" + a->name + axis + ")", r);
  tag(op);
  return true;
}

bool Gen::opMatmul(Scope &s) {
  if (!on("matmul"))
    return false;
  auto a = pickVal(s, [](const Val &v) {
    return v.numeric() && (v.rank() == 1 || v.rank() == 2);
  });
  if (!a)
    return false;
  int64_t k = a->shape.back();
  auto b = pickVal(s, [&](const Val &v) {
    return v.dt == a->dt && (v.rank() == 1 || v.rank() == 2) && v.shape[0] == k;
  });
  if (!b)
    return false;
  Val r;
  r.dt = a->dt;
  if (a->rank() == 2)
    r.shape.push_back(a->shape[0]);
  if (b->rank() == 2)
    r.shape.push_back(b->shape[1]);
  r.dep = a->dep | b->dep;
  r.bound = k * a->bound * b->bound;
  r.integral = a->integral && b->integral;
  bool exact = r.integral && r.bound < (1 << 24) && a->exact() && b->exact();
  r.err = exact
              ? 0
              : k * (a->err * b->bound + b->err * a->bound + a->err * b->err) +
                    kU * k * r.bound;
  if (r.dt == DT::I32) {
    if (r.bound > kMaxI32)
      return false;
    r.err = 0;
  } else if (r.bound > kMaxF32) {
    return false;
  }
  std::string e = "(" + a->name + " @ " + b->name + ")";
  emit(s, e, e, r);
  tag("matmul");
  return true;
}

// ---- shapes --------------------------------------------------------------

bool Gen::opTranspose(Scope &s) {
  bool fn = on("transpose"), dotT = on("dot_T");
  if (!fn && !dotT)
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.rank() >= 2; });
  if (!a)
    return false;
  Val r = *a;
  r.weak = false;
  int64_t n = a->rank();
  if (dotT && (!fn || chance(0.3))) {
    std::reverse(r.shape.begin(), r.shape.end());
    emit(s, a->name + ".T", a->name + ".T", r);
    tag("dot_T");
    return true;
  }
  if (chance(0.25)) {
    std::reverse(r.shape.begin(), r.shape.end());
    emit(s, "transpose(" + a->name + ")", "jnp.transpose(" + a->name + ")", r);
  } else {
    std::vector<int64_t> perm(n);
    for (int64_t i = 0; i < n; ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int64_t i = 0; i < n; ++i)
      r.shape[i] = a->shape[perm[i]];
    std::string p = tupleText(perm);
    emit(s, "transpose(" + a->name + ", perm=" + p + ")",
         "jnp.transpose(" + a->name + ", " + p + ")", r);
  }
  tag("transpose");
  return true;
}

bool Gen::opReshape(Scope &s) {
  if (!on("reshape"))
    return false;
  auto a =
      pickVal(s, [](const Val &v) { return v.numel() > 1 || v.rank() > 0; });
  if (!a)
    return false;
  int64_t n = a->numel();
  int64_t rank = range(1, 3);
  Shape shape;
  int64_t left = n;
  for (int64_t i = 0; i + 1 < rank; ++i) {
    std::vector<int64_t> divs;
    for (int64_t d = 1; d <= left; ++d)
      if (left % d == 0)
        divs.push_back(d);
    int64_t d = pick(divs);
    shape.push_back(d);
    left /= d;
  }
  shape.push_back(left);
  std::shuffle(shape.begin(), shape.end(), rng);
  Val r = *a;
  r.weak = false;
  r.shape = shape;
  std::vector<std::string> dims;
  for (int64_t d : shape)
    dims.push_back(std::to_string(d));
  if (chance(0.3))
    dims[rnd(dims.size())] = "-1";
  std::string t = "(";
  for (size_t i = 0; i < dims.size(); ++i)
    t += (i ? ", " : "") + dims[i];
  t += dims.size() == 1 ? ",)" : ")";
  emit(s, "reshape(" + a->name + ", " + t + ")",
       "jnp.reshape(" + a->name + ", " + t + ")", r);
  tag("reshape");
  return true;
}

bool Gen::opBroadcastTo(Scope &s) {
  if (!on("broadcast_to"))
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.rank() <= 2; });
  if (!a)
    return false;
  Shape shape = a->shape;
  for (int64_t &d : shape)
    if (d == 1 && chance(0.6))
      d = range(2, 3);
  int64_t extra = range(shape == a->shape ? 1 : 0, 4 - a->rank() > 0 ? 1 : 0);
  for (int64_t i = 0; i < extra; ++i)
    shape.insert(shape.begin(), range(1, 3));
  if (shape == a->shape || shape.empty())
    return false;
  Val r = *a;
  r.weak = false;
  r.shape = shape;
  std::string t = tupleText(shape);
  emit(s, "broadcast_to(" + a->name + ", " + t + ")",
       "jnp.broadcast_to(" + a->name + ", " + t + ")", r);
  tag("broadcast_to");
  return true;
}

bool Gen::opConcat(Scope &s) {
  if (!on("concat"))
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.rank() >= 1 && !v.weak; });
  if (!a)
    return false;
  int64_t k = rnd(a->rank());
  std::vector<Val> pieces = {*a};
  int64_t n = range(1, 2);
  for (int64_t i = 0; i < n; ++i) {
    auto b = pickVal(
        s,
        [&](const Val &v) {
          if (v.dt != a->dt || v.rank() != a->rank() || v.weak)
            return false;
          for (int64_t d = 0; d < a->rank(); ++d)
            if (d != k && v.shape[d] != a->shape[d])
              return false;
          return true;
        },
        false);
    if (b)
      pieces.push_back(*b);
  }
  if (pieces.size() < 2 && chance(0.7))
    return false;
  std::shuffle(pieces.begin(), pieces.end(), rng);
  Val r = *a;
  r.shape[k] = 0;
  r.dep = 0;
  r.bound = 0;
  r.err = 0;
  r.integral = r.nonzero = true;
  std::string list;
  for (const Val &p : pieces) {
    r.shape[k] += p.shape[k];
    r.dep |= p.dep;
    r.bound = std::max(r.bound, p.bound);
    r.err = std::max(r.err, p.err);
    r.integral = r.integral && p.integral;
    r.nonzero = r.nonzero && p.nonzero;
    list += (list.empty() ? "" : ", ") + p.name;
  }
  if (pieces.size() == 1)
    list += ",";
  std::string axis;
  if (k != 0 || chance(0.6))
    axis = ", axis=" + std::to_string(chance(0.4) ? k - a->rank() : k);
  emit(s, "concat((" + list + ")" + axis + ")",
       "jnp.concatenate((" + list + ")" + axis + ")", r);
  tag("concat");
  return true;
}

bool Gen::opSlice(Scope &s) {
  bool sl = on("slice"), idx = on("index");
  if (!sl && !idx)
    return false;
  auto a = pickVal(s, [](const Val &v) { return v.rank() >= 1; });
  if (!a)
    return false;
  std::vector<std::string> specs;
  Shape shape;
  bool any = false, usedSlice = false, usedIndex = false;
  int64_t ndims = range(1, a->rank());
  for (int64_t i = 0; i < a->rank(); ++i) {
    int64_t d = a->shape[i];
    int kind = i < ndims ? static_cast<int>(rnd(6)) : 0;
    if ((kind == 5 && !idx) || (kind >= 1 && kind <= 4 && !sl))
      kind = 0;
    switch (kind) {
    case 0:
      specs.push_back(":");
      shape.push_back(d);
      break;
    case 1: { // start:stop, maybe negative start or open end
      int64_t st = rnd(d), en = range(st + 1, d);
      if (!on("slice_prefix") && st == 0 && en < d) {
        // x[0:k] with k < d: off while the compiler rejects it.
        st = 1;
        en = std::max<int64_t>(en, 2);
      }
      std::string a0 = st == 0 && chance(0.5) ? "" : std::to_string(st);
      if (!a0.empty() && chance(0.3))
        a0 = std::to_string(st - d);
      std::string b0 = en == d && chance(0.5) ? "" : std::to_string(en);
      if (st == 0 && en < d)
        tag("slice_prefix");
      specs.push_back(a0 + ":" + b0);
      shape.push_back(en - st);
      any = usedSlice = true;
      break;
    }
    case 2: { // start::step
      int64_t step = range(2, 3), st = rnd(d);
      specs.push_back((st ? std::to_string(st) : "") +
                      "::" + std::to_string(step));
      shape.push_back((d - st + step - 1) / step);
      any = usedSlice = true;
      break;
    }
    case 3: // reversed
      specs.push_back("::-1");
      shape.push_back(d);
      any = usedSlice = true;
      break;
    case 4: { // stop:start:-step
      int64_t step = range(1, 2), st = rnd(d);
      if (st == 0 && d > 1) {
        if (on("slice_prefix"))
          tag("slice_prefix");
        else
          st = range(1, d - 1);
      }
      specs.push_back(std::to_string(st) + "::-" + std::to_string(step));
      shape.push_back(st / step + 1);
      any = usedSlice = true;
      break;
    }
    case 5: { // an integer index
      int64_t k = rnd(d);
      if (!on("slice_prefix") && k == 0 && d > 1)
        k = range(1, d - 1);
      if (k == 0 && d > 1)
        tag("slice_prefix");
      specs.push_back(std::to_string(chance(0.4) ? k - d : k));
      any = usedIndex = true;
      break;
    }
    }
  }
  if (!any)
    return false;
  while (specs.size() > 1 && specs.back() == ":" && chance(0.7))
    specs.pop_back();
  std::string t;
  for (size_t i = 0; i < specs.size(); ++i)
    t += (i ? ", " : "") + specs[i];
  Val r = *a;
  r.weak = false;
  r.shape = shape;
  std::string e = a->name + "[" + t + "]";
  emit(s, e, e, r);
  if (usedSlice)
    tag("slice");
  if (usedIndex)
    tag("index");
  return true;
}

bool Gen::opIota(Scope &s) {
  if (!on("iota"))
    return false;
  int64_t n = range(1, 5);
  Val r;
  r.dt = DT::I32;
  r.shape = {n};
  r.bound = n;
  r.integral = true;
  std::string sn = std::to_string(n);
  emit(s, "iota(" + sn + ")", "jnp.arange(" + sn + ", dtype=jnp.int32)", r);
  tag("iota");
  return true;
}

bool Gen::opLiteralArray(Scope &s) {
  if (!on("literal_array"))
    return false;
  Shape shape = {range(1, 4)};
  if (chance(0.5))
    shape.insert(shape.begin(), range(1, 3));
  DT dt = chance(0.6) ? DT::F32 : DT::I32;
  Val r;
  r.dt = dt;
  r.shape = shape;
  r.integral = dt == DT::I32;
  r.weak = true;
  r.bound = 0;
  r.nonzero = true;
  auto element = [&]() {
    if (dt == DT::F32) {
      double x = range(-8, 8) * 0.25;
      r.bound = std::max(r.bound, std::fabs(x));
      r.integral = r.integral && x == std::floor(x);
      return fmtFloat(x);
    }
    int64_t x = range(-5, 5);
    r.bound = std::max<double>(r.bound, std::abs(x));
    r.nonzero = r.nonzero && x != 0;
    return std::to_string(x);
  };
  std::string t;
  auto row = [&](int64_t n) {
    std::string s0 = "[";
    for (int64_t i = 0; i < n; ++i)
      s0 += (i ? ", " : "") + element();
    return s0 + "]";
  };
  if (shape.size() == 1) {
    t = row(shape[0]);
  } else {
    t = "[";
    for (int64_t i = 0; i < shape[0]; ++i)
      t += (i ? ", " : "") + row(shape[1]);
    t += "]";
  }
  if (dt == DT::F32)
    r.integral = r.integral; // computed by element()
  emit(s, t, "jnp.array(" + t + ", dtype=" + jdt(dt) + ")", r);
  tag("literal_array");
  return true;
}

bool Gen::opZerosOnes(Scope &s) {
  std::vector<std::string> ops;
  for (const char *op : {"zeros", "ones"})
    if (on(op))
      ops.push_back(op);
  if (ops.empty())
    return false;
  std::string op = pick(ops);
  Shape shape = randomShape(2);
  if (shape.empty())
    shape = {range(1, 4)};
  DT dt = chance(0.6) ? DT::F32 : chance(0.7) ? DT::I32 : DT::Bool;
  Val r;
  r.dt = dt;
  r.shape = shape;
  r.bound = op == "ones" ? 1 : 0;
  r.integral = true;
  r.nonzero = op == "ones";
  std::string sh = shape.size() == 1 && chance(0.5) ? std::to_string(shape[0])
                                                    : tupleText(shape);
  std::string dtArg;
  if (dt != DT::F32 || chance(0.3))
    dtArg = std::string(", dtype=") + dtName(dt);
  emit(s, op + "(" + sh + dtArg + ")",
       "jnp." + op + "(" + tupleText(shape) + ", " + jdt(dt) + ")", r);
  tag(op);
  return true;
}

// ---- indexing: x[i], take, x.at[...] -------------------------------------
//
// Index values are exact i32 (inputs, loop indices, argmax, their integer
// transforms): negative and out of range as often as in range, so that the
// clamp of x[i], take's fill and clip and the dropped updates of x.at[]
// all happen. JAX's twin uses the same indexing (x[i], jnp.take(mode=),
// x.at[]), except where JAX leaves a result unspecified: duplicate indices
// of `.set` go through `_last_only` (jaxPrelude), which keeps vmapc's rule
// (the last in index order wins).

Batching Gen::batching(const Scope &s, uint64_t dep) const {
  if (dep & s.batched)
    return Batching::Yes;
  if (dep & s.unknown)
    return Batching::Unknown;
  return Batching::No;
}

void Gen::tagGather(const Scope &s, uint64_t operand, uint64_t indices) {
  Batching o = batching(s, operand), i = batching(s, indices);
  if (o == Batching::Unknown || i == Batching::Unknown)
    return;
  if (o == Batching::Yes && i == Batching::Yes)
    tag("gather_both");
  else if (o == Batching::Yes)
    tag("gather_operand");
  else if (i == Batching::Yes)
    tag("gather_indices");
}

void Gen::tagScatter(const Scope &s, uint64_t operand, uint64_t indices,
                     uint64_t updates) {
  Batching o = batching(s, operand), i = batching(s, indices),
           u = batching(s, updates);
  if (o == Batching::Unknown || i == Batching::Unknown ||
      u == Batching::Unknown)
    return;
  if (o == Batching::Yes && i == Batching::Yes)
    tag("scatter_both");
  else if (o == Batching::Yes)
    tag("scatter_operand");
  else if (i == Batching::Yes)
    tag("scatter_indices");
  else if (u == Batching::Yes)
    tag("scatter_updates");
}

std::optional<Val>
Gen::pickIndexSource(Scope &s, const std::function<bool(const Val &)> &pred) {
  if (wantBatchedIndex || wantBatchedValue)
    if (auto v = pickVal(s, [&](const Val &v) {
          return pred(v) &&
                 batching(s, v.dep) ==
                     (wantBatchedIndex ? Batching::Yes : Batching::No);
        }))
      return v;
  return pickVal(s, pred);
}

std::optional<Index> Gen::scalarIndex(Scope &s, uint64_t forbid) {
  auto usable = [&](const Val &v) {
    return (v.dep & forbid) == 0 && !v.weak && v.exact();
  };
  std::optional<Val> loopIndex;
  for (const Val &v : s.vals)
    if (v.name.rfind("ix", 0) == 0 && usable(v))
      loopIndex = v;
  for (int attempt = 0; attempt < 6; ++attempt) {
    int form = static_cast<int>(rnd(4));
    if (loopIndex && chance(0.4))
      form = 0;
    Index ix;
    if (form == 0) { // the loop index, maybe reversed (Horner's c[n - 1 - i])
      if (!loopIndex)
        continue;
      ix.dep = loopIndex->dep;
      ix.loop = true;
      if (chance(0.6)) {
        ix.arr = ix.py = loopIndex->name;
        ix.bound = loopIndex->bound;
      } else {
        int64_t k = range(1, 5);
        ix.arr = ix.py =
            "(" + std::to_string(k) + " - " + loopIndex->name + ")";
        ix.bound = k + loopIndex->bound;
      }
      return ix;
    }
    if (form == 1) { // an i32 scalar, divided to land near the range
      auto v = pickIndexSource(s, [&](const Val &v) {
        return usable(v) && v.dt == DT::I32 && v.rank() == 0;
      });
      if (!v)
        continue;
      ix.dep = v->dep;
      int variant = static_cast<int>(rnd(4));
      if (variant == 0) {
        ix.arr = ix.py = v->name;
        ix.bound = v->bound;
      } else if (variant == 1 && on("div") && on("i32_div")) {
        int64_t k = range(2, 5);
        ix.arr = "(" + v->name + " / " + std::to_string(k) + ")";
        ix.py = "_idiv(" + v->name + ", " + std::to_string(k) + ")";
        ix.bound = std::floor(v->bound / k);
        tag("div");
        tag("i32_div");
      } else if (variant == 2 && on("neg")) {
        ix.arr = ix.py = "(-" + v->name + ")";
        ix.bound = v->bound;
        tag("neg");
      } else {
        int64_t k = range(1, 3);
        ix.arr = ix.py = "(" + v->name + " - " + std::to_string(k) + ")";
        ix.bound = v->bound + k;
        tag("sub");
      }
      return ix;
    }
    if (form == 2) { // an element of an i32 array: a histogram's bin
      auto a = pickIndexSource(s, [&](const Val &v) {
        return usable(v) && v.dt == DT::I32 && v.rank() == 1;
      });
      if (!a)
        continue;
      ix.dep = a->dep;
      ix.bound = a->bound;
      if (loopIndex && chance(0.6)) {
        ix.arr = ix.py = a->name + "[" + loopIndex->name + "]";
        ix.dep |= loopIndex->dep;
        ix.loop = true;
        tag("index_computed");
        tag("index_loop");
        tagGather(s, a->dep, loopIndex->dep);
      } else {
        int64_t d = a->shape[0], k = rnd(d);
        ix.arr = ix.py =
            a->name + "[" + std::to_string(chance(0.4) ? k - d : k) + "]";
        tag("index");
      }
      return ix;
    }
    // The position of an extreme (flattened).
    bool isMax = chance(0.5);
    if (!on(isMax ? "argmax" : "argmin"))
      continue;
    auto a = pickIndexSource(s, [&](const Val &v) {
      return usable(v) && v.numeric() && v.rank() >= 1;
    });
    if (!a)
      continue;
    std::string op = isMax ? "argmax" : "argmin";
    ix.arr = op + "(" + a->name + ")";
    ix.py = "jnp." + op + "(" + a->name + ")";
    ix.dep = a->dep;
    ix.bound = a->numel();
    tag(op);
    return ix;
  }
  return std::nullopt;
}

std::optional<Index> Gen::arrayIndex(Scope &s, int64_t size, int maxRank,
                                     uint64_t forbid) {
  for (int attempt = 0; attempt < 6; ++attempt) {
    int form = static_cast<int>(rnd(3));
    Index ix;
    if (form == 0) { // i32 data, maybe divided
      auto v = pickIndexSource(s, [&](const Val &v) {
        return (v.dep & forbid) == 0 && !v.weak && v.dt == DT::I32 &&
               v.rank() >= 1 && v.rank() <= maxRank;
      });
      if (!v)
        continue;
      ix.shape = v->shape;
      ix.dep = v->dep;
      if (chance(0.5) && on("div") && on("i32_div")) {
        int64_t k = range(2, 5);
        ix.arr = "(" + v->name + " / " + std::to_string(k) + ")";
        ix.py = "_idiv(" + v->name + ", " + std::to_string(k) + ")";
        ix.bound = std::floor(v->bound / k);
        tag("div");
        tag("i32_div");
      } else {
        ix.arr = ix.py = v->name;
        ix.bound = v->bound;
      }
      return ix;
    }
    if (form == 1) { // a window: iota shifted (partly out of range)
      if (!on("iota"))
        continue;
      int64_t n = range(1, 4), c = range(-size - 1, 2);
      std::string sn = std::to_string(n);
      std::string shift = (c < 0 ? " - " : " + ") + std::to_string(std::abs(c));
      ix.arr = "(iota(" + sn + ")" + shift + ")";
      ix.py = "(jnp.arange(" + sn + ", dtype=jnp.int32)" + shift + ")";
      ix.shape = {n};
      ix.bound = std::max<double>(std::abs(c), std::abs(n - 1 + c));
      tag("iota");
      return ix;
    }
    // A literal array, with a repeated index and out-of-range ones.
    int64_t n = range(2, 4);
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(range(-size - 1, size));
    if (chance(0.6)) { // one element twice, maybe once from the end
      values[0] = range(0, size - 1);
      values[range(1, n - 1)] = values[0] - (chance(0.5) ? 0 : size);
    }
    std::string t = "[";
    for (int64_t i = 0; i < n; ++i) {
      t += (i ? ", " : "") + std::to_string(values[i]);
      ix.bound = std::max<double>(ix.bound, std::abs(values[i]));
      for (int64_t j = 0; j < i; ++j) {
        auto norm = [&](int64_t v) { return v < 0 ? v + size : v; };
        if (norm(values[j]) == norm(values[i]) && norm(values[i]) >= 0 &&
            norm(values[i]) < size)
          ix.dup = true;
      }
    }
    t += "]";
    ix.arr = t;
    ix.py = "jnp.array(" + t + ", dtype=jnp.int32)";
    ix.shape = {n};
    return ix;
  }
  return std::nullopt;
}

/// An operand of a gather or scatter: often an unbatched one,
/// so that batched indices meet an unbatched operand (the rules' own
/// branches) as often as the other cases.
std::optional<Val> Gen::indexedOperand(Scope &s, bool gather) {
  // A gathered bool array read as a number is wrong: off while the compiler
  // gets it wrong (README.md, "Switches").
  bool bools = !gather || on("gather_bool");
  auto ok = [&](const Val &v) {
    return v.rank() >= 1 && !v.weak && (bools || v.dt != DT::Bool);
  };
  wantBatchedIndex = wantBatchedValue = false;
  if (chance(gather ? 0.35 : 0.5))
    if (auto v = pickVal(s, [&](const Val &v) {
          return ok(v) && batching(s, v.dep) == Batching::No;
        })) {
      // Batched indices, or (for an update) a batched value.
      wantBatchedIndex = chance(0.6);
      wantBatchedValue = !wantBatchedIndex;
      return v;
    }
  return pickVal(s, ok);
}

bool Gen::opIndex(Scope &s) {
  if (!on("index_computed"))
    return false;
  auto a = indexedOperand(s, true);
  if (!a)
    return false;
  // Per dimension: 0 ':', 1 a computed index, 2 a static slice, 3 a static
  // integer index; at least one computed.
  int64_t ndims = range(1, a->rank());
  std::vector<int> kinds(ndims);
  for (int &k : kinds) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    k = u < 0.5 ? 1 : u < 0.75 ? 0 : u < 0.875 ? 2 : 3;
    if ((k == 2 && !on("slice")) || (k == 3 && !on("index")))
      k = 0;
  }
  if (std::count(kinds.begin(), kinds.end(), 1) == 0)
    kinds[rnd(ndims)] = 1;
  int computed = static_cast<int>(std::count(kinds.begin(), kinds.end(), 1));
  if (computed >= 2 && !on("index_pair"))
    return false;
  bool col = kinds[0] == 0; // x[:, i]
  if (col && !on("index_col"))
    return false;
  bool mixed =
      std::any_of(kinds.begin(), kinds.end(), [](int k) { return k >= 2; });
  if (mixed && !on("index_mixed"))
    return false;
  std::string arr, py;
  Val r = *a;
  r.weak = false;
  r.shape.clear();
  bool loop = false;
  uint64_t operandDep = a->dep;
  for (int64_t d = 0; d < a->rank(); ++d) {
    int64_t n = a->shape[d];
    int kind = d < ndims ? kinds[d] : 0;
    std::string ta, tp;
    if (kind == 0) {
      ta = tp = ":";
      r.shape.push_back(n);
    } else if (kind == 1) {
      auto ix = scalarIndex(s);
      if (!ix)
        return false;
      ta = ix->arr;
      tp = ix->py;
      loop = loop || ix->loop;
      r.dep |= ix->dep;
      // Each computed index gathers from what the earlier ones left.
      tagGather(s, operandDep, ix->dep);
      operandDep |= ix->dep;
    } else if (kind == 2) {
      if (chance(0.3)) {
        ta = "::-1";
        r.shape.push_back(n);
      } else {
        int64_t st = rnd(n), en = range(st + 1, n);
        ta = std::to_string(st) + ":" + std::to_string(en);
        r.shape.push_back(en - st);
      }
      tp = ta;
      tag("slice");
    } else {
      int64_t k = rnd(n);
      ta = tp = std::to_string(chance(0.4) ? k - n : k);
      tag("index");
    }
    if (d < ndims) {
      arr += (d ? ", " : "") + ta;
      py += (d ? ", " : "") + tp;
    }
  }
  emit(s, a->name + "[" + arr + "]", a->name + "[" + py + "]", r);
  tag("index_computed");
  if (a->dt == DT::Bool)
    tag("gather_bool");
  if (computed >= 2)
    tag("index_pair");
  if (col)
    tag("index_col");
  if (mixed)
    tag("index_mixed");
  if (loop)
    tag("index_loop");
  return true;
}

bool Gen::opTake(Scope &s) {
  bool fill = on("take_fill"), clip = on("take_clip");
  if (!fill && !clip)
    return false;
  auto x = indexedOperand(s, true);
  if (!x)
    return false;
  bool flat = on("take_flat") && chance(x->rank() == 1 ? 0.3 : 0.4);
  int64_t axis = flat ? 0 : rnd(x->rank());
  int64_t size = flat ? x->numel() : x->shape[axis];
  std::optional<Index> ix =
      chance(0.25) ? scalarIndex(s) : arrayIndex(s, size, 2);
  if (!ix)
    return false;
  bool isFill = fill && (!clip || chance(0.5));
  Val r = *x;
  r.weak = false;
  r.dep = x->dep | ix->dep;
  r.shape.clear();
  if (!flat)
    r.shape.assign(x->shape.begin(), x->shape.begin() + axis);
  r.shape.insert(r.shape.end(), ix->shape.begin(), ix->shape.end());
  if (!flat)
    r.shape.insert(r.shape.end(), x->shape.begin() + axis + 1, x->shape.end());
  std::string axisArr, axisPy;
  if (!flat) {
    int64_t written = chance(0.35) ? axis - x->rank() : axis;
    axisArr = ", axis=" + std::to_string(written);
    axisPy = ", axis=" + std::to_string(written);
  }
  std::string modeArr =
      isFill ? (chance(0.5) ? ", mode=fill" : "") : ", mode=clip";
  std::string call =
      "take(" + x->name + ", " + ix->arr + axisArr + modeArr + ")";
  std::string pyCall = "jnp.take(" + x->name + ", " + ix->py + axisPy +
                       ", mode='" + (isFill ? "fill" : "clip") + "')";
  tagGather(s, x->dep, ix->dep);
  tag(isFill ? "take_fill" : "take_clip");
  if (x->dt == DT::Bool)
    tag("gather_bool");
  if (flat)
    tag("take_flat");
  if (ix->loop)
    tag("index_loop");
  // An index out of [-size, size) reads NaN / INT32_MIN under fill: replaced
  // at once (NaN would reach discrete ops; INT32_MIN overflow i32 bounds).
  bool mayFill = isFill && ix->bound > size - 1 && x->dt != DT::Bool;
  if (!mayFill) {
    emit(s, call, pyCall, r);
    return true;
  }
  if (x->dt == DT::F32 ? !on("where") || !on("gt") : !on("maximum"))
    return false;
  std::string raw = fresh("t");
  markUsed(s, call);
  s.arr += s.arrPad() + "let " + raw + " = " + call + ";\n";
  s.py += s.pyPad() + raw + " = " + pyCall + "\n";
  if (x->dt == DT::F32) {
    std::string k = fmtFloat(-std::ceil(x->bound + 1));
    r.nonzero = false;
    std::string e = "where(" + raw + " > " + k + ", " + raw + ", 0.0)";
    emit(s, e, "jnp.where(" + raw + " > " + k + ", " + raw + ", 0.0)", r);
    tag("where");
    tag("gt");
  } else {
    int64_t k = static_cast<int64_t>(x->bound) + 1;
    r.bound = static_cast<double>(k);
    std::string e = "maximum(" + raw + ", " + std::to_string(-k) + ")";
    emit(s, e, "jnp.maximum(" + raw + ", " + std::to_string(-k) + ")", r);
    tag("maximum");
  }
  return true;
}

std::optional<Update> Gen::update(Scope &s, const Val &x, const Val *init,
                                  int64_t trips, uint64_t forbid) {
  // A loop carry (init given) is updated `trips` times: its declared bound
  // must hold after the last.
  bool forCarry = init != nullptr;
  std::vector<std::string> kinds;
  for (const char *k : {"set", "add", "mul", "min", "max"})
    if (on(std::string("at_") + k) &&
        (x.dt != DT::Bool || std::string(k) == "set"))
      kinds.push_back(k);
  if (kinds.empty() || (x.dt == DT::Bool && !on("at_bool")))
    return std::nullopt;
  std::string kind = pick(kinds);
  // With `at_from_self` off, the index and the value are never computed
  // from x (nor, for a carry, from its init, which other carries may
  // share) (README.md, "Switches").
  std::set<std::string> savedAvoid = avoid;
  if (!on("at_from_self")) {
    avoid.insert(x.name);
    if (forCarry)
      avoid.insert(init->name);
  }
  struct Restore {
    std::set<std::string> &avoid, saved;
    ~Restore() { avoid = saved; }
  } restore{avoid, savedAvoid};
  // Targets: dims [0, first) and the dims skipped are ':'; each chosen dim
  // takes a computed scalar or a literal index; the last may instead take
  // an array of indices or a static slice (vmapc's rule: one array, after
  // every scalar).
  int64_t rank = x.rank();
  int64_t ntargets = on("at_nested") && rank >= 2 && chance(0.3) ? 2 : 1;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d);
  std::shuffle(dims.begin(), dims.end(), rng);
  dims.resize(ntargets);
  std::sort(dims.begin(), dims.end());
  // `.add` / `.mul` at scalar indices only: off while their fusion into a
  // reader through a broadcast (broadcast_to, a nested update's set-back,
  // the body of a 1-trip loop inlined) applies them once per read
  // (README.md, "Switches"). An array or a slice target is a reduction,
  // never fused so; a loop of 2 trips or more yields the carry.
  bool accumulate = kind == "add" || kind == "mul";
  bool fusable = accumulate && (!forCarry || trips < 2 || ntargets > 1);
  bool scalarAccumulateOff = fusable && !on("at_scalar_accumulate");
  // Per dim: 0 ':', 1 computed scalar, 2 literal, 3 array, 4 static slice.
  std::vector<int> kindOf(rank, 0);
  for (size_t t = 0; t < dims.size(); ++t) {
    bool last = t + 1 == dims.size();
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    int k = u < 0.45 ? 1 : u < 0.6 ? 2 : u < 0.85 ? 3 : 4;
    if (!last && k >= 3)
      k = 1;
    if ((k == 2 && !on("at_literal")) || (k == 3 && !on("at_array")) ||
        (k == 4 && !on("at_slice")))
      k = 1;
    if (last && k <= 2 && scalarAccumulateOff)
      k = on("at_array") && chance(0.6) ? 3 : 4;
    if (k == 4 && !on("at_slice"))
      return std::nullopt;
    kindOf[dims[t]] = k;
  }
  std::vector<std::string> ta(rank, ":"), tp(rank, ":");
  Shape updShape;
  uint64_t indexDep = 0, firstDep = 0;
  int64_t hits = 1; // updates that can land on one element
  bool loop = false, dup = false;
  int64_t arrayDim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = x.shape[d];
    switch (kindOf[d]) {
    case 0:
      updShape.push_back(n);
      break;
    case 1: {
      auto ix = scalarIndex(s, forbid);
      if (!ix)
        return std::nullopt;
      ta[d] = ix->arr;
      tp[d] = ix->py;
      indexDep |= ix->dep;
      loop = loop || ix->loop;
      break;
    }
    case 2: {
      int64_t k = range(-n - 2, n + 1);
      ta[d] = tp[d] = std::to_string(k);
      tag("at_literal");
      break;
    }
    case 3: {
      auto ix = arrayIndex(s, n, 1, forbid);
      if (!ix)
        return std::nullopt;
      ta[d] = ix->arr;
      tp[d] = kind == "set"
                  ? "_last_only(" + ix->py + ", " + std::to_string(n) + ")"
                  : ix->py;
      indexDep |= ix->dep;
      loop = loop || ix->loop;
      dup = ix->dup;
      hits = ix->shape[0];
      updShape.insert(updShape.end(), ix->shape.begin(), ix->shape.end());
      arrayDim = d;
      tag("at_array");
      break;
    }
    case 4: {
      int64_t st, en, step = 1;
      if (chance(0.3)) {
        ta[d] = "::-1";
        st = 0;
        en = n;
      } else if (chance(0.4) && n > 1) {
        st = rnd(n);
        step = 2;
        en = n;
        ta[d] = (st ? std::to_string(st) : "") + "::2";
      } else {
        st = rnd(n);
        en = range(st + 1, n);
        ta[d] =
            (st && chance(0.4) ? std::to_string(st - n) : std::to_string(st)) +
            ":" + std::to_string(en);
      }
      tp[d] = ta[d];
      updShape.push_back((en - st + step - 1) / step);
      tag("at_slice");
      break;
    }
    }
    if (d == dims.front())
      firstDep = indexDep;
  }
  // The value: a literal or a value broadcasting to the updated shape.
  std::string value, pyValue;
  Val v;
  bool useLiteral =
      x.dt != DT::Bool && (kind == "mul" || chance(forCarry           ? 0.6
                                                   : wantBatchedValue ? 0.1
                                                                      : 0.35));
  if (forCarry && x.dt == DT::F32 && kind != "mul") {
    // tanh keeps a carry bounded whatever the trip count.
    if (!on("tanh"))
      return std::nullopt;
    auto z = produce(s, DT::F32, updShape, false, 3, forbid);
    if (!z)
      return std::nullopt;
    v = *z;
    v.bound = std::min(1.0, z->bound);
    v.err = z->err + kT;
    value = "tanh(" + z->name + ")";
    pyValue = "jnp.tanh(" + z->name + ")";
    tag("tanh");
    if (kind == "add") {
      v.bound *= 0.25;
      v.err *= 0.25;
      value = "(" + value + " * 0.25)";
      pyValue = "(" + pyValue + " * 0.25)";
      tag("mul");
    }
  } else if (useLiteral) {
    v = literal(x.dt);
    if (kind == "mul") {
      // A carry is multiplied every trip: only by factors of at most 1.
      static const std::vector<std::string> f = {"0.5", "2.0", "-1.0", "1.5"};
      static const std::vector<std::string> i = {"2", "-1", "3", "1"};
      static const std::vector<std::string> fc = {"0.5", "-1.0"};
      static const std::vector<std::string> ic = {"-1", "1"};
      v.name = pick(forCarry ? (x.dt == DT::F32 ? fc : ic)
                             : (x.dt == DT::F32 ? f : i));
      v.bound = std::fabs(std::stod(v.name));
      v.integral = v.name != "0.5" && v.name != "1.5";
    }
    value = pyValue = v.name;
  } else {
    auto fits = [&](const Val &c) {
      return c.dt == x.dt && (c.dep & forbid) == 0 &&
             broadcastsTo(c.shape, updShape) && (kind != "mul" || c.bound <= 2);
    };
    std::optional<Val> z;
    if (wantBatchedValue)
      z = pickVal(s, [&](const Val &c) {
        return fits(c) && batching(s, c.dep) == Batching::Yes;
      });
    if (!z)
      z = pickVal(s, fits);
    if (!z)
      z = produce(s, x.dt, updShape, false, 3, forbid);
    if (!z || (kind == "mul" && z->bound > 2))
      return std::nullopt;
    v = *z;
    value = pyValue = z->name;
  }
  // What the update makes of x; `hits` updates may combine on one element.
  Val r = x;
  r.weak = false;
  r.dep = x.dep | indexDep | v.dep;
  double vb = v.bound;
  if (kind == "set" || kind == "min" || kind == "max") {
    r.bound = std::max(x.bound, vb);
    r.err = std::max(x.err, v.err);
    r.integral = x.integral && v.integral;
    r.nonzero = kind == "set" && x.nonzero && v.nonzero;
  } else if (kind == "add") {
    r.bound = x.bound + hits * vb;
    r.integral = x.integral && v.integral;
    bool exact = x.exact() && v.exact() && r.integral && r.bound < (1 << 24);
    r.err = exact ? 0 : x.err + hits * v.err + kU * (hits + 1) * r.bound;
    r.nonzero = false;
  } else { // mul
    double grow = std::pow(std::max(1.0, vb), static_cast<double>(hits));
    r.bound = x.bound * grow;
    r.integral = x.integral && v.integral;
    bool exact = x.exact() && v.exact() && r.integral && r.bound < (1 << 24);
    r.err = exact ? 0
                  : x.err * grow + hits * v.err * x.bound * grow +
                        kU * (hits + 1) * r.bound;
    r.nonzero = false;
  }
  if (forCarry) {
    // After `trips` updates from the init: within the carry's bound.
    double after = kind == "add"   ? init->bound + trips * hits * vb
                   : kind == "mul" ? init->bound
                                   : std::max(init->bound, vb);
    if (x.dt != DT::Bool && after > x.bound)
      return std::nullopt;
    r.bound = x.bound;
    r.integral = x.integral;
    r.nonzero = false;
    r.err =
        x.dt == DT::F32
            ? 2 * (init->err + (trips + 1) * hits * (v.err + 2 * kT + 4 * kU))
            : 0;
  } else if (r.dt == DT::I32) {
    if (r.bound > kMaxI32)
      return std::nullopt;
    r.err = 0;
  } else if (r.bound > kMaxF32) {
    return std::nullopt;
  }
  // Text. Trailing ':' may be left out (and must be, for x.at[:] alone).
  int64_t lastTarget = dims.back();
  auto spec = [&](const std::vector<std::string> &t, int64_t from, int64_t to) {
    std::string out;
    for (int64_t d = from; d <= to; ++d)
      out += (d > from ? ", " : "") + t[d];
    return out;
  };
  int64_t written = lastTarget;
  if (written + 1 < rank && chance(0.3))
    written = rank - 1;
  Update u;
  u.arr =
      x.name + ".at[" + spec(ta, 0, written) + "]." + kind + "(" + value + ")";
  // JAX (numpy) moves the dims of an array index to the front when a ':'
  // separates it from a scalar index; vmapc nests instead (the row at the
  // scalars, updated at the array, set back). The twin nests likewise then.
  bool gap = false;
  if (arrayDim >= 0)
    for (int64_t d = dims.front(); d < arrayDim; ++d)
      gap = gap || kindOf[d] == 0;
  if (!gap) {
    u.py = x.name + ".at[" + spec(tp, 0, written) + "]." + kind + "(" +
           pyValue + ")";
  } else {
    int64_t split = -1; // the last scalar before the ':' gap
    for (int64_t d = 0; d < arrayDim; ++d)
      if (kindOf[d] == 1 || kindOf[d] == 2)
        split = d;
    std::string outer = spec(tp, 0, split);
    std::vector<std::string> rest;
    for (int64_t d = 0; d < rank; ++d)
      if (d > split || kindOf[d] == 0)
        rest.push_back(d > split ? tp[d] : ":");
    std::string inner;
    for (size_t i = 0; i < rest.size(); ++i)
      inner += (i ? ", " : "") + rest[i];
    u.py = x.name + ".at[" + outer + "].set(" + x.name + "[" + outer + "].at[" +
           inner + "]." + kind + "(" + pyValue + "))";
  }
  u.result = r;
  if (on("at_from_self")) {
    std::string read = value;
    for (const std::string &t : ta)
      read += " " + t;
    if (fromOf(s, read).count(x.name))
      tag("at_from_self");
  }
  if (fusable && kindOf[dims.back()] <= 2)
    tag("at_scalar_accumulate");
  // The outermost scatter: x at the first target; nested, its updates are
  // the row read at that index, updated.
  uint64_t updatesDep = ntargets > 1 ? (x.dep | indexDep | v.dep) : v.dep;
  tagScatter(s, x.dep, ntargets > 1 ? firstDep : indexDep, updatesDep);
  tag("at_" + kind);
  if (ntargets > 1)
    tag("at_nested");
  if (dup)
    tag("at_dup");
  if (x.dt == DT::Bool)
    tag("at_bool");
  if (loop)
    tag("index_loop");
  if (forCarry)
    tag("at_carry");
  return u;
}

bool Gen::opAt(Scope &s) {
  auto x = indexedOperand(s, false);
  if (!x)
    return false;
  std::optional<Update> u = update(s, *x, nullptr, 0, 0);
  if (!u)
    return false;
  u->result.scattered = true;
  emit(s, u->arr, u->py, u->result);
  return true;
}

// ---- values of a given type ----------------------------------------------

std::optional<Val> Gen::produce(Scope &s, DT dt, const Shape &shape,
                                bool needExact, int fuel, uint64_t forbid) {
  if (fuel <= 0)
    return std::nullopt;
  auto ok = [&](const Val &v) {
    return v.dt == dt && (!needExact || v.exact()) && (v.dep & forbid) == 0 &&
           !avoided(v);
  };
  // Prefer a value of the loop body (or anywhere) of the right type.
  std::vector<size_t> same, sameBody;
  for (size_t i = 0; i < s.vals.size(); ++i)
    if (ok(s.vals[i]) && s.vals[i].shape == shape) {
      same.push_back(i);
      if (i >= s.bodyStart)
        sameBody.push_back(i);
    }
  if (!sameBody.empty() && chance(0.8))
    return s.vals[pick(sameBody)];
  if (!same.empty() && chance(0.5))
    return s.vals[pick(same)];
  if (dt == DT::Bool) {
    if (!on("gt"))
      return std::nullopt;
    auto x = produce(s, chance(0.5) ? DT::I32 : DT::F32, shape, true, fuel - 1,
                     forbid);
    if (!x)
      return std::nullopt;
    Val r = *x;
    r.dt = DT::Bool;
    r.bound = 1;
    r.weak = false;
    std::string e = "(" + x->name + " > 0)";
    tag("gt");
    return emit(s, e, e, r);
  }
  auto src = pickVal(s, [&](const Val &v) { return ok(v); });
  if (!src) {
    // Another dtype, cast.
    if (dt == DT::F32 && on("cast_f32")) {
      auto i = pickVal(s, [&](const Val &v) {
        return (v.dt == DT::I32 || v.dt == DT::Bool) && (v.dep & forbid) == 0;
      });
      if (!i)
        return std::nullopt;
      Val r = *i;
      r.dt = DT::F32;
      r.weak = false;
      tag("cast_f32");
      src =
          emit(s, "f32(" + i->name + ")", i->name + ".astype(jnp.float32)", r);
    } else if (dt == DT::I32 && on("cast_i32")) {
      auto f = pickVal(s, [&](const Val &v) {
        return (v.dep & forbid) == 0 &&
               (v.dt == DT::Bool ||
                (v.dt == DT::F32 && v.integral && v.exact() && v.bound < 1e5));
      });
      if (!f)
        return std::nullopt;
      Val r = *f;
      r.dt = DT::I32;
      r.weak = false;
      r.nonzero = false;
      tag("cast_i32");
      src = emit(s, "i32(" + f->name + ")", f->name + ".astype(jnp.int32)", r);
    } else {
      return std::nullopt;
    }
  }
  Val v = *src;
  if (v.shape == shape)
    return v;
  Val r = v;
  r.weak = false;
  r.shape = shape;
  if (broadcastsTo(v.shape, shape) && on("broadcast_to")) {
    std::string t = tupleText(shape);
    tag("broadcast_to");
    if (shape.empty())
      return std::nullopt;
    return emit(s, "broadcast_to(" + v.name + ", " + t + ")",
                "jnp.broadcast_to(" + v.name + ", " + t + ")", r);
  }
  Val tmp;
  if (v.numel() == r.numel() && on("reshape") && !shape.empty()) {
    std::string t = tupleText(shape);
    tag("reshape");
    return emit(s, "reshape(" + v.name + ", " + t + ")",
                "jnp.reshape(" + v.name + ", " + t + ")", r);
  }
  // Reduce to a scalar (max keeps exactness), then broadcast.
  if (!on("max"))
    return std::nullopt;
  Val sc = v;
  sc.weak = false;
  sc.shape.clear();
  tag("max");
  sc = emit(s, "max(" + v.name + ")", "jnp.max(" + v.name + ")", sc);
  if (shape.empty())
    return sc;
  if (!on("broadcast_to"))
    return std::nullopt;
  std::string t = tupleText(shape);
  tag("broadcast_to");
  r = sc;
  r.shape = shape;
  return emit(s, "broadcast_to(" + sc.name + ", " + t + ")",
              "jnp.broadcast_to(" + sc.name + ", " + t + ")", r);
}

// ---- calls, vmaps, loops -------------------------------------------------

std::string Gen::axisText(std::optional<int64_t> axis, int64_t rank, bool in) {
  // rank: the rank of the batched value (per-example rank + 1).
  if (!axis) {
    tag(in ? "in_none" : "out_none");
    return "none";
  }
  bool neg = chance(0.35);
  tag(in ? (neg ? "in_neg" : "in_pos") : (neg ? "out_neg" : "out_pos"));
  return std::to_string(neg ? *axis - rank : *axis);
}

std::string Gen::axesText(const std::vector<std::string> &entries, bool py,
                          bool alwaysTuple) {
  auto conv = [&](const std::string &e) {
    return py && e == "none" ? std::string("None") : e;
  };
  bool allSame =
      std::all_of(entries.begin(), entries.end(),
                  [&](const std::string &e) { return e == entries[0]; });
  if (entries.size() == 1 && !alwaysTuple)
    return conv(entries[0]);
  if (allSame && entries[0] != "none" && chance(0.3))
    return conv(entries[0]);
  std::string t = "(";
  for (size_t i = 0; i < entries.size(); ++i)
    t += (i ? ", " : "") + conv(entries[i]);
  return t + (entries.size() == 1 ? ",)" : ")");
}

std::vector<Val> Gen::chooseOutputs(Scope &s, uint64_t mappedMask, int count,
                                    bool isExport) {
  std::vector<Val> outs;
  // The latest unused values (sinks), so that the body's chains are used.
  std::vector<Val> sinks;
  for (auto it = s.vals.rbegin(); it != s.vals.rend(); ++it)
    if (it->uses == 0 && it->name[0] != 'x')
      sinks.push_back(*it);
  outs.push_back(sinks.empty() ? s.vals.back() : sinks[0]);
  for (int i = 1; i < count; ++i) {
    std::optional<Val> v;
    if (i < static_cast<int>(sinks.size()) && chance(0.6))
      v = sinks[i];
    else if (chance(0.5))
      v = pickVal(
          s, [&](const Val &x) { return (x.dep & mappedMask) == 0; }, false);
    if (!v)
      v = pickVal(
          s, [](const Val &) { return true; }, false);
    outs.push_back(*v);
  }
  if (isExport) {
    // The same computed value twice among the export's outputs: off while
    // the compiler rejects it (see README.md, "Compiler bugs found").
    std::set<std::string> seen;
    std::vector<Val> kept;
    for (const Val &o : outs) {
      bool dup = seen.count(o.name) && o.name[0] != 'x';
      if (dup && !on("dup_output"))
        continue;
      if (dup)
        tag("dup_output");
      seen.insert(o.name);
      kept.push_back(o);
    }
    outs = kept;
    // An update's result among the export's outputs before a computed
    // value: off while the compiler rejects `return (y.at[0].add(1.0), y)`
    // (README.md, "Switches"); the updates go last instead.
    bool after = false, flagged = false;
    for (const Val &o : outs) {
      if (o.scattered)
        after = true;
      else if (after && o.name[0] != 'x')
        flagged = true;
    }
    if (flagged && on("at_output_first"))
      tag("at_output_first");
    else if (flagged)
      std::stable_partition(outs.begin(), outs.end(),
                            [](const Val &o) { return !o.scattered; });
  }
  if (isExport && count == 1 && chance(0.25)) {
    auto v = pickVal(
        s, [&](const Val &x) { return (x.dep & mappedMask) == 0; }, false);
    if (v)
      outs[0] = *v;
  }
  return outs;
}

FnResult Gen::genFunction(const std::vector<Val> &params, int depth,
                          int callLevel, uint64_t mappedMask, bool isExport,
                          int statements, uint64_t batchedMask,
                          uint64_t unknownMask) {
  ++functions;
  maxDepth = std::max(maxDepth, depth);
  FnResult fn;
  fn.name =
      isExport ? prefix + "f" : prefix + "h" + std::to_string(fnCounter++);
  Scope s;
  s.depth = depth;
  s.callLevel = callLevel;
  s.batched = batchedMask;
  s.unknown = unknownMask | kPlaceholderBits;
  std::string sig, pySig;
  for (size_t i = 0; i < params.size(); ++i) {
    Val p = params[i];
    p.name = "x" + std::to_string(counter++);
    p.dep = uint64_t(1) << i;
    p.weak = false;
    s.vals.push_back(p);
    fn.params.push_back(p);
    sig += (i ? ", " : "") + p.name + ": " + typeText(p.dt, p.shape);
    pySig += (i ? ", " : "") + p.name;
    // An unmapped input arrives as a numpy array: indexed with a traced
    // index (x[i], x.at[i]) it must be a JAX one.
    s.py += s.pyPad() + p.name + " = jnp.asarray(" + p.name + ")\n";
  }
  for (int i = 0; i < statements; ++i)
    statement(s);
  int nOut = 1;
  if (on("tuple") && chance(isExport ? 0.4 : 0.3))
    nOut = chance(0.7) ? 2 : 3;
  std::vector<Val> outs = chooseOutputs(s, mappedMask, nOut, isExport);
  if (isExport && !on("dup_output")) {
    // Two outputs that are one value after CSE (x * 2.0 twice, the same
    // transpose of an input twice) fail to bufferize (README.md): make
    // every output after the first distinct.
    std::vector<Val> kept = {outs[0]};
    int bools = outs[0].dt == DT::Bool;
    for (size_t i = 1; i < outs.size(); ++i) {
      Val o = outs[i];
      Val r = o;
      r.weak = false;
      if (o.dt == DT::Bool) {
        if (bools++)
          continue;
        std::string e = "(not " + o.name + ")";
        r = emit(s, e, "jnp.logical_not(" + o.name + ")", r);
        tag("not");
      } else {
        std::string k = o.dt == DT::F32 ? fmtFloat(static_cast<double>(i))
                                        : std::to_string(i);
        r.bound = o.bound + i;
        r.integral = o.integral;
        bool exact = o.exact() && o.integral && r.bound < (1 << 24);
        r.err = (o.dt == DT::I32 || exact) ? 0 : o.err + kU * r.bound;
        if (o.dt == DT::I32 && r.bound > kMaxI32)
          continue;
        std::string e = "(" + o.name + " + " + k + ")";
        r = emit(s, e, e, r);
        tag("add");
      }
      kept.push_back(r);
    }
    outs = kept;
  }
  if (isExport) {
    // Scale f32 outputs until their error estimate is within the budget.
    for (Val &o : outs) {
      if (o.dt != DT::F32 || o.err <= kOutputErr)
        continue;
      double scale = 1;
      while (o.err * scale > kOutputErr)
        scale /= 2;
      Val r = o;
      r.weak = false;
      r.err = o.err * scale;
      r.bound = o.bound * scale;
      std::string e = "(" + o.name + " * " + fmtFloat(scale) + ")";
      o = emit(s, e, e, r);
      tag("mul");
    }
  }
  std::string ret, pyRet, rtype;
  for (size_t i = 0; i < outs.size(); ++i) {
    ret += (i ? ", " : "") + outs[i].name;
    rtype += (i ? ", " : "") + typeText(outs[i].dt, outs[i].shape);
  }
  if (outs.size() > 1) {
    ret = "(" + ret + ")";
    rtype = "(" + rtype + ")";
    tag("tuple");
  }
  pyRet = ret;
  fn.results = outs;
  moduleArr += "fn " + fn.name + "(" + sig + ") -> " + rtype + " {\n" + s.arr +
               "  return " + ret + ";\n}\n";
  modulePy += "def " + fn.name + "(" + pySig + "):\n" + s.py + "    return " +
              pyRet + "\n";
  return fn;
}

bool Gen::opCall(Scope &s) {
  if (!on("call") || s.callLevel >= 2 || functions >= 5)
    return false;
  int64_t n = range(1, 3);
  std::vector<Val> args;
  for (int64_t i = 0; i < n; ++i)
    args.push_back(*pickVal(s, [](const Val &) { return true; }));
  // The call rule batches the helper for its arguments' batch dims.
  uint64_t batchedArgs = 0, unknownArgs = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    Batching b = batching(s, args[i].dep);
    if (b == Batching::Yes)
      batchedArgs |= uint64_t(1) << i;
    else if (b == Batching::Unknown)
      unknownArgs |= uint64_t(1) << i;
  }
  FnResult fn =
      genFunction(args, s.depth, s.callLevel + 1, 0, false,
                  static_cast<int>(range(1, 4)), batchedArgs, unknownArgs);
  std::string list;
  for (size_t i = 0; i < args.size(); ++i)
    list += (i ? ", " : "") + args[i].name;
  std::vector<Val> res;
  std::string names;
  for (const Val &r0 : fn.results) {
    Val r = r0;
    r.weak = false;
    r.dep = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (r0.dep & (uint64_t(1) << i))
        r.dep |= args[i].dep;
    r.dep |= r0.dep & kLoopBit;
    r.from = fromOf(s, list);
    r.name = fresh();
    names += (names.empty() ? "" : ", ") + r.name;
    res.push_back(r);
  }
  markUsed(s, list);
  std::string call = fn.name + "(" + list + ")";
  if (res.size() == 1) {
    s.arr += s.arrPad() + "let " + names + " = " + call + ";\n";
    s.py += s.pyPad() + names + " = " + call + "\n";
  } else {
    s.arr += s.arrPad() + "let (" + names + ") = " + call + ";\n";
    s.py += s.pyPad() + names + " = " + call + "\n";
  }
  for (const Val &r : res)
    s.vals.push_back(r);
  tag("call");
  return true;
}

bool Gen::opVmap(Scope &s) {
  if (!on("vmap") || functions >= 5)
    return false;
  int levels = 1;
  if (on("nested_vmap_inline") && s.depth + 2 <= 3 && chance(0.35))
    levels = 2;
  if (s.depth + levels > 3)
    return false;
  auto first = pickVal(s, [&](const Val &v) { return v.rank() >= levels; });
  if (!first)
    return false;
  int64_t nargs = range(1, 3);
  std::vector<Val> args = {*first};
  for (int64_t i = 1; i < nargs; ++i)
    args.push_back(*pickVal(
        s, [](const Val &) { return true; }, false));
  // Per level (outer first): the mapped axis of each arg (in the shape at
  // that level), and the shapes after removing it.
  std::vector<Shape> shapes;
  for (const Val &a : args)
    shapes.push_back(a.shape);
  std::vector<std::vector<std::optional<int64_t>>> inAxes(levels);
  std::vector<uint64_t> mappedMask(levels, 0);
  std::vector<int64_t> sizes(levels);
  for (int l = 0; l < levels; ++l) {
    // The first arg of rank >= 1 (at this level) decides the size.
    std::optional<int64_t> m;
    for (size_t i = 0; i < args.size(); ++i) {
      const Shape &sh = shapes[i];
      std::optional<int64_t> ax;
      int64_t needRank = (i == 0) ? levels - l : 1;
      if (!m) {
        if (static_cast<int64_t>(sh.size()) >= needRank &&
            (i == 0 || chance(0.8))) {
          ax = rnd(sh.size());
          m = sh[*ax];
        }
      } else if (chance(0.7)) {
        std::vector<int64_t> cands;
        for (size_t d = 0; d < sh.size(); ++d)
          if (sh[d] == *m)
            cands.push_back(d);
        if (!cands.empty())
          ax = pick(cands);
      }
      inAxes[l].push_back(ax);
      if (ax) {
        mappedMask[l] |= uint64_t(1) << i;
        shapes[i].erase(shapes[i].begin() + *ax);
      }
    }
    if (!m)
      return false;
    sizes[l] = *m;
  }
  std::vector<Val> params;
  for (size_t i = 0; i < args.size(); ++i) {
    Val p = args[i];
    p.shape = shapes[i];
    params.push_back(p);
  }
  // Its innermost vmap batches exactly the parameters it maps.
  FnResult fn = genFunction(
      params, s.depth + levels, s.callLevel + 1, mappedMask[levels - 1], false,
      static_cast<int>(range(1, 4)), mappedMask[levels - 1]);
  // Build the vmap text from the inside out; result shapes likewise.
  std::vector<Shape> resShapes;
  for (const Val &r : fn.results)
    resShapes.push_back(r.shape);
  std::string arrCallee = fn.name, pyCallee = fn.name;
  std::vector<Shape> argShapesAtLevel = shapes; // innermost per-example
  for (int l = levels - 1; l >= 0; --l) {
    std::vector<std::string> in, out;
    for (size_t i = 0; i < args.size(); ++i) {
      int64_t batchedRank = argShapesAtLevel[i].size() + 1;
      in.push_back(axisText(inAxes[l][i], batchedRank, true));
      if (inAxes[l][i])
        argShapesAtLevel[i].insert(argShapesAtLevel[i].begin() + *inAxes[l][i],
                                   sizes[l]);
    }
    for (size_t j = 0; j < fn.results.size(); ++j) {
      std::optional<int64_t> ax;
      int64_t r = resShapes[j].size();
      bool independent = (fn.results[j].dep & mappedMask[l]) == 0;
      if (!(independent && chance(0.5)))
        ax = rnd(r + 1);
      out.push_back(axisText(ax, r + 1, false));
      if (ax)
        resShapes[j].insert(resShapes[j].begin() + *ax, sizes[l]);
    }
    std::string inA = axesText(in, false, true), inP = axesText(in, true, true);
    bool tupleOut = fn.results.size() > 1;
    std::string outA = axesText(out, false, tupleOut),
                outP = axesText(out, true, tupleOut);
    bool defaultOut = outA == "0" && chance(0.5);
    std::string arrV = "vmap(" + arrCallee + ", in_axes=" + inA +
                       (defaultOut ? "" : ", out_axes=" + outA) + ")";
    std::string pyV = "jax.vmap(" + pyCallee + ", in_axes=" + inP +
                      ", out_axes=" + outP + ")";
    if (levels == 1 && on("named_map") && chance(0.3)) {
      std::string name = prefix + "m" + std::to_string(mapCounter++);
      moduleArr += "fn " + name + " = " + arrV + ";\n";
      modulePy += name + " = " + pyV + "\n";
      arrV = pyV = name;
      tag("named_map");
    }
    arrCallee = arrV;
    pyCallee = pyV;
  }
  std::string list;
  for (size_t i = 0; i < args.size(); ++i)
    list += (i ? ", " : "") + args[i].name;
  std::vector<Val> res;
  std::string names;
  for (size_t j = 0; j < fn.results.size(); ++j) {
    Val r = fn.results[j];
    r.weak = false;
    r.shape = resShapes[j];
    r.dep = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (fn.results[j].dep & (uint64_t(1) << i))
        r.dep |= args[i].dep;
    r.dep |= fn.results[j].dep & kLoopBit;
    r.from = fromOf(s, list);
    r.name = fresh();
    names += (names.empty() ? "" : ", ") + r.name;
    res.push_back(r);
  }
  markUsed(s, list);
  std::string lhsA = res.size() == 1 ? names : "(" + names + ")";
  s.arr += s.arrPad() + "let " + lhsA + " = " + arrCallee + "(" + list + ");\n";
  s.py += s.pyPad() + names + " = " + pyCallee + "(" + list + ")\n";
  for (const Val &r : res)
    s.vals.push_back(r);
  tag("vmap");
  if (levels == 2)
    tag("nested_vmap_inline");
  return true;
}

bool Gen::opFor(Scope &s) {
  auto savedTags = tags;
  std::string savedArr = moduleArr, savedPy = modulePy;
  int savedFunctions = functions, savedDepth = maxDepth;
  if (opForImpl(s))
    return true;
  tags = savedTags;
  moduleArr = savedArr;
  modulePy = savedPy;
  functions = savedFunctions;
  maxDepth = savedDepth;
  return false;
}

bool Gen::opForImpl(Scope &s) {
  if (!on("for") || s.loopLevel >= (on("nested_for") ? 2 : 1))
    return false;
  if (s.loopLevel == 1 && !chance(0.5))
    return false;
  int64_t trips = chance(0.1) ? 0 : range(1, 4);
  int64_t ncarry = range(1, 3);
  std::string idx = fresh("ix");
  Scope body;
  body.depth = s.depth;
  body.callLevel = s.callLevel;
  body.loopLevel = s.loopLevel + 1;
  body.batched = s.batched;
  body.unknown = s.unknown;
  body.arrIndent = s.arrIndent + 1;
  body.pyIndent = s.pyIndent + 1;
  body.vals = s.vals;
  Val iv;
  iv.name = idx;
  iv.dt = DT::I32;
  iv.bound = std::max<int64_t>(trips, 1);
  iv.integral = true;
  body.vals.push_back(iv);
  std::vector<Val> inits, carries;
  uint64_t myBits = 0;
  for (int64_t k = 0; k < ncarry; ++k) {
    // Two carries with one init value (or one yielded value) fail to
    // bufferize: off while the compiler rejects it (README.md).
    bool shared = on("shared_carry");
    bool reuse = on("init_reuse");
    std::optional<Val> init;
    if (k == 0 && on("const_init") && on("zeros") && chance(0.2)) {
      // A histogram's bins: zeros, updated with .at[] in the body.
      Val z;
      z.dt = chance(0.7) ? DT::I32 : DT::F32;
      z.shape = {range(2, 5)};
      z.bound = 0;
      z.integral = true;
      std::string n = std::to_string(z.shape[0]);
      init = emit(
          s, std::string("zeros((") + n + ",), dtype=" + dtName(z.dt) + ")",
          std::string("jnp.zeros((") + n + ",), " + jdt(z.dt) + ")", z);
      tag("zeros");
    }
    if (!init)
      init = pickVal(s, [&](const Val &v) {
        if (v.weak)
          return false;
        // An init value also read elsewhere (a parameter, an outer carry, a
        // value used before or after the loop) may fail to bufferize: off
        // while the compiler rejects it (README.md).
        if (!reuse && (v.uses > 0 || v.name[0] != 'v'))
          return false;
        // A constant init (zeros, ones, iota, a literal array) may be
        // written in place: off while the compiler rejects it (README.md).
        if (!on("const_init") && (v.dep & ~kLoopBit) == 0)
          return false;
        if (!shared)
          for (const Val &i : inits)
            if (i.name == v.name)
              return false;
        return true;
      });
    if (!init)
      return false;
    for (const Val &i : inits)
      if (i.name == init->name)
        tag("shared_carry");
    if ((init->dep & ~kLoopBit) == 0)
      tag("const_init");
    inits.push_back(*init);
    Val c = *init;
    c.from.insert(init->name);
    c.name = fresh("c");
    uint64_t bit = uint64_t(1) << placeholder--;
    myBits |= bit;
    c.dep = bit;
    if (c.dt == DT::F32) {
      c.bound = std::max(init->bound, 2.0);
      c.err = init->err + 1e-7; // never exact: its value changes per trip
      c.integral = false;
    } else if (c.dt == DT::I32) {
      c.nonzero = false;
      c.bound = std::max(init->bound, 1.0) * 8 + 100;
    }
    carries.push_back(c);
    body.vals.push_back(c);
  }
  if (!on("init_as_const")) {
    // A body reading a carry's init value (as a const) fails to bufferize
    // or is miscompiled: off while the compiler rejects it (README.md).
    std::vector<Val> kept;
    for (const Val &v : body.vals) {
      bool isInit = false;
      for (const Val &i : inits)
        isInit = isInit || i.name == v.name;
      if (!isInit)
        kept.push_back(v);
    }
    body.vals = kept;
  } else {
    tag("init_as_const");
  }
  body.bodyStart = body.vals.size();
  int64_t nstmt = range(1, 4);
  for (int64_t i = 0; i < nstmt; ++i)
    statement(body);
  if (body.loopLevel == 1 && on("nested_for") && chance(0.3))
    opFor(body); // a loop in the loop (rare among random statements)
  // Yields.
  std::vector<std::string> ya, yp;
  std::vector<Val> finals;
  for (int64_t k = 0; k < ncarry; ++k) {
    const Val &c = carries[k];
    Val f = c;
    f.name = c.name;
    // Off while the compiler rejects it: a yield reading another carry
    // (a swap of carries fails to bufferize; README.md).
    uint64_t others = on("cross_carry") ? 0 : (myBits & ~c.dep);
    if (on("at_carry") && c.rank() >= 1 && chance(0.35)) {
      // The carry updated in place: c.at[...].add(1) (a histogram), ...
      auto saved = tags;
      wantBatchedIndex = wantBatchedValue = false;
      if (std::optional<Update> u = update(body, c, &inits[k], trips, others)) {
        Val g = u->result;
        g.name = c.name;
        g.weak = false;
        if (g.dep & myBits & ~c.dep)
          tag("cross_carry");
        ya.push_back(u->arr);
        yp.push_back("jnp.asarray(" + u->py + ", " + jdt(c.dt) + ")");
        finals.push_back(g);
        continue;
      }
      tags = saved;
    }
    auto z = produce(body, c.dt, c.shape, false, 3, others);
    if (!z)
      return false;
    std::string e, pe;
    uint64_t dep = c.dep | z->dep;
    if (z->dep & myBits & ~c.dep)
      tag("cross_carry");
    if (c.dt == DT::F32) {
      if (!on("tanh"))
        return false;
      int form = static_cast<int>(rnd(on("maximum") ? 3 : 2));
      if (!on("shared_carry") && form == 0)
        form = 1; // a yield of its own carry: never one value for two
      if (form == 0) {
        e = "tanh(" + z->name + ")";
        pe = "jnp.tanh(" + z->name + ")";
        dep = z->dep;
      } else if (form == 1) {
        e = "((" + c.name + " * 0.5) + tanh(" + z->name + "))";
        pe = "((" + c.name + " * 0.5) + jnp.tanh(" + z->name + "))";
      } else {
        e = "maximum(" + c.name + ", tanh(" + z->name + "))";
        pe = "jnp.maximum(" + c.name + ", jnp.tanh(" + z->name + "))";
        tag("maximum");
      }
      tag("tanh");
      f.bound = c.bound;
      f.err = 2 * (inits[k].err + (trips + 1) * (z->err + 2 * kT + kU * 4));
    } else if (c.dt == DT::I32) {
      double zb = z->bound;
      if (inits[k].bound + trips * zb > c.bound)
        return false;
      if (on("maximum") && chance(0.3)) {
        e = "maximum(" + c.name + ", " + z->name + ")";
        pe = "jnp.maximum(" + c.name + ", " + z->name + ")";
        f.bound = std::max(inits[k].bound, zb);
        tag("maximum");
      } else {
        e = "(" + c.name + " + " + z->name + ")";
        pe = e;
        f.bound = inits[k].bound + trips * zb;
        tag("add");
      }
      f.err = 0;
      f.integral = true;
    } else {
      std::vector<std::string> forms;
      for (const char *op : {"and", "or", "not"})
        if (on(op))
          forms.push_back(op);
      if (forms.empty()) {
        e = pe = z->name;
        dep = z->dep;
      } else {
        std::string op = pick(forms);
        if (op == "not" && !on("shared_carry") && forms.size() > 1)
          op = forms[0];
        if (op == "not") {
          e = "(not " + z->name + ")";
          pe = "jnp.logical_not(" + z->name + ")";
          dep = z->dep;
        } else {
          e = "(" + c.name + " " + op + " " + z->name + ")";
          pe = "jnp.logical_" + op + "(" + c.name + ", " + z->name + ")";
        }
        tag(op);
      }
    }
    f.dep = dep; // resolved below
    f.weak = false;
    ya.push_back(e);
    yp.push_back("jnp.asarray(" + pe + ", " + jdt(c.dt) + ")");
    finals.push_back(f);
  }
  // Dependence fixpoint: a carry depends on its init and on what its yield
  // depends on, through other carries of this loop.
  std::vector<uint64_t> dep(ncarry);
  for (int64_t k = 0; k < ncarry; ++k)
    dep[k] = inits[k].dep;
  for (bool changed = true; changed;) {
    changed = false;
    for (int64_t k = 0; k < ncarry; ++k) {
      uint64_t d = dep[k] | (finals[k].dep & ~myBits);
      for (int64_t j = 0; j < ncarry; ++j)
        if (finals[k].dep & carries[j].dep)
          d |= dep[j];
      if (d != dep[k]) {
        dep[k] = d;
        changed = true;
      }
    }
  }
  // Text.
  std::string inner = s.arrPad() + "for " + idx + " in range(" +
                      std::to_string(trips) + ") carry (";
  std::string pyInit = "(", pyUnpack;
  for (int64_t k = 0; k < ncarry; ++k) {
    inner += (k ? ", " : "") + carries[k].name + " = " + inits[k].name;
    pyInit += "jnp.asarray(" + inits[k].name + ", " + jdt(carries[k].dt) + ")" +
              (ncarry == 1       ? ",)"
               : k + 1 == ncarry ? ")"
                                 : ", ");
    pyUnpack += carries[k].name + ", ";
  }
  inner += ") {\n" + body.arr + body.arrPad();
  if (ncarry == 1) {
    inner += "yield " + ya[0] + ";\n";
  } else {
    inner += "yield (";
    for (int64_t k = 0; k < ncarry; ++k)
      inner += (k ? ", " : "") + ya[k];
    inner += ");\n";
  }
  inner += s.arrPad() + "}\n";
  std::string bodyName = prefix + "body" + std::to_string(loopCounter++);
  std::string py = s.pyPad() + "def " + bodyName + "(" + idx + ", carry):\n" +
                   body.pyPad() + "(" + pyUnpack + ") = carry\n" + body.py +
                   body.pyPad() + "return (";
  for (int64_t k = 0; k < ncarry; ++k)
    py += yp[k] + ", ";
  py += ")\n";
  py += s.pyPad() + "(" + pyUnpack + ") = lax.fori_loop(0, " +
        std::to_string(trips) + ", " + bodyName + ", " + pyInit + ")\n";
  markUsed(s, inner);
  s.arr += inner;
  s.py += py;
  if (!on("init_reuse")) {
    std::vector<Val> kept;
    for (const Val &v : s.vals) {
      bool isInit = false;
      for (const Val &i : inits)
        isInit = isInit || i.name == v.name;
      if (!isInit)
        kept.push_back(v);
    }
    s.vals = kept;
  } else {
    tag("init_reuse");
  }
  for (int64_t k = 0; k < ncarry; ++k) {
    Val f = finals[k];
    f.dep = dep[k] | kLoopBit;
    // What the loop read from outside (and its inits).
    f.from = fromOf(s, inner);
    f.from.insert(carries[k].from.begin(), carries[k].from.end());
    s.vals.push_back(f);
  }
  tag("for");
  if (s.loopLevel >= 1)
    tag("nested_for");
  return true;
}

void Gen::statement(Scope &s) {
  using Op = bool (Gen::*)(Scope &);
  static const std::vector<std::pair<Op, int>> ops = {
      {&Gen::opArith, 12},    {&Gen::opDiv, 3},
      {&Gen::opNeg, 2},       {&Gen::opCompare, 5},
      {&Gen::opLogic, 4},     {&Gen::opUnary, 8},
      {&Gen::opMaxMin, 3},    {&Gen::opPow, 2},
      {&Gen::opWhere, 3},     {&Gen::opCast, 3},
      {&Gen::opReduce, 6},    {&Gen::opArg, 2},
      {&Gen::opMatmul, 3},    {&Gen::opTranspose, 3},
      {&Gen::opReshape, 2},   {&Gen::opBroadcastTo, 2},
      {&Gen::opConcat, 2},    {&Gen::opSlice, 3},
      {&Gen::opIota, 1},      {&Gen::opLiteralArray, 1},
      {&Gen::opZerosOnes, 1}, {&Gen::opCall, 2},
      {&Gen::opVmap, 4},      {&Gen::opFor, 2},
      {&Gen::opIndex, 3},     {&Gen::opTake, 2},
      {&Gen::opAt, 3},        {&Gen::opMath, 4},
      {&Gen::opRound, 2},     {&Gen::opNN, 3},
      {&Gen::opSoftmax, 2},   {&Gen::opAnyAll, 2},
      {&Gen::opNewAxis, 2}};
  int total = 0;
  for (const auto &o : ops)
    total += o.second;
  for (int attempt = 0; attempt < 30; ++attempt) {
    int64_t x = rnd(total);
    for (const auto &o : ops) {
      if (x < o.second) {
        // A failed attempt may have tagged what it never emitted.
        auto saved = tags;
        wantBatchedIndex = wantBatchedValue = false;
        if ((this->*o.first)(s))
          return;
        tags = saved;
        break;
      }
      x -= o.second;
    }
  }
}

Program Gen::run(uint64_t seed) {
  Program p;
  p.seed = seed;
  p.prefix = prefix;
  // The export's per-example parameters.
  int64_t nparams = range(1, 4);
  static const std::vector<int64_t> sizesAll = {1, 2, 3, 4, 5};
  std::vector<int64_t> pool = {pick(sizesAll), pick(sizesAll), pick(sizesAll)};
  std::vector<Val> params;
  for (int64_t i = 0; i < nparams; ++i) {
    Val v;
    double d = std::uniform_real_distribution<double>(0, 1)(rng);
    v.dt = d < 0.6 ? DT::F32 : d < 0.9 ? DT::I32 : DT::Bool;
    int64_t rank = chance(0.12) ? 0 : range(1, 3);
    for (int64_t k = 0; k < rank; ++k)
      v.shape.push_back(pick(pool));
    if (v.dt == DT::F32) {
      v.bound = 1;
    } else if (v.dt == DT::I32) {
      v.bound = 20;
      v.integral = v.nonzero = true;
    } else {
      v.bound = 1;
      v.integral = true;
    }
    params.push_back(v);
  }
  // in_axes: at least one mapped.
  std::vector<std::optional<int64_t>> inAxes(nparams);
  uint64_t mapped = 0;
  int64_t forced = rnd(nparams);
  for (int64_t i = 0; i < nparams; ++i) {
    if (i == forced || chance(0.7)) {
      inAxes[i] = rnd(params[i].rank() + 1);
      mapped |= uint64_t(1) << i;
      if (params[i].rank() == 0)
        tag("scalar_mapped");
    }
  }
  FnResult f = genFunction(params, 1, 0, mapped, true,
                           static_cast<int>(range(4, 9)), mapped);
  std::vector<std::string> in, out;
  for (int64_t i = 0; i < nparams; ++i)
    in.push_back(axisText(inAxes[i], params[i].rank() + 1, true));
  for (const Val &r : f.results) {
    std::optional<int64_t> ax;
    // An unmapped loop result is wrong once N > B (README.md): off while
    // the compiler gets it wrong.
    bool loopOk = !(r.dep & kLoopBit) || on("loop_out_none");
    if (!((r.dep & mapped) == 0 && loopOk && chance(0.6)))
      ax = rnd(r.rank() + 1);
    else if (r.dep & kLoopBit)
      tag("loop_out_none");
    out.push_back(axisText(ax, r.rank() + 1, false));
  }
  bool tupleOut = f.results.size() > 1;
  p.batch = chance(0.15) ? 1 : pick(std::vector<int64_t>{2, 3, 4, 5, 7, 8});
  if (p.batch == 1)
    tag("B1");
  std::string inA = axesText(in, false, false), inP = axesText(in, true, true);
  std::string outA = axesText(out, false, tupleOut),
              outP = axesText(out, true, tupleOut);
  p.exportName = prefix + "e";
  moduleArr += "export " + p.exportName + " = vmap(" + f.name +
               ", in_axes=" + inA + ", out_axes=" + outA +
               ", batch=" + std::to_string(p.batch) + ");\n";
  modulePy += p.exportName + " = jax.vmap(" + f.name + ", in_axes=" + inP +
              ", out_axes=" + outP + ")\n";
  tag("depth" + std::to_string(maxDepth));
  p.arr = moduleArr;
  p.jax = modulePy;
  p.tags = tags;
  return p;
}

std::vector<std::string> splitList(const char *text) {
  std::vector<std::string> out;
  if (!text)
    return out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace

Features Features::fromEnvironment() {
  Features f;
  for (const std::string &t : kDefaultDisabled)
    f.disabled.insert(t);
  for (const std::string &t : splitList(std::getenv("VMAPC_PROPERTY_DISABLE")))
    f.disabled.insert(t);
  for (const std::string &t : splitList(std::getenv("VMAPC_PROPERTY_ENABLE")))
    f.disabled.erase(t);
  return f;
}

const std::vector<std::string> &vmapc::property::allFeatures() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v = kOpTags;
    v.insert(v.end(), kStructuralTags.begin(), kStructuralTags.end());
    return v;
  }();
  return all;
}

bool vmapc::property::isStructuralTag(const std::string &tag) {
  return std::find(kStructuralTags.begin(), kStructuralTags.end(), tag) !=
         kStructuralTags.end();
}

Program vmapc::property::generateProgram(uint64_t seed,
                                         const std::string &prefix,
                                         const Features &features) {
  Gen g(seed * 0x9E3779B97F4A7C15ull + 12345, prefix, features);
  return g.run(seed);
}

std::string vmapc::property::jaxPrelude() {
  return "import jax\n"
         "import jax.numpy as jnp\n"
         "import jax.scipy.special\n"
         "from jax import lax\n"
         "\n"
         "def _idiv(a, b):\n"
         "    a, b = jnp.broadcast_arrays(jnp.asarray(a, jnp.int32),\n"
         "                                jnp.asarray(b, jnp.int32))\n"
         "    return lax.div(a, b)\n\n"
         "def _last_only(idx, size):\n"
         "    # x.at[idx].set(v) with duplicate indices: vmapc keeps the last\n"
         "    # in index order, JAX leaves it unspecified. Every earlier\n"
         "    # duplicate becomes `size` (out of range: dropped), so that JAX\n"
         "    # scatters unique indices.\n"
         "    idx = jnp.asarray(idx, jnp.int32)\n"
         "    flat = idx.reshape(-1)\n"
         "    norm = jnp.where(flat < 0, flat + size, flat)\n"
         "    n = flat.shape[0]\n"
         "    later = jnp.arange(n)[None, :] > jnp.arange(n)[:, None]\n"
         "    dup = jnp.any((norm[:, None] == norm[None, :]) & later, axis=1)\n"
         "    return jnp.where(dup, size, flat).reshape(idx.shape)\n\n";
}

//===- RandomPrograms.cpp - random per-example arr programs ---------------===//

#include "test/oracle/RandomPrograms.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <vector>

using namespace vmapc::oracle::test;

namespace {

using Shape = std::vector<int64_t>;

/// "tensor<2x3xf32>"; `batch` inserts "{B}" at `batchAxis`.
std::string tensorType(const Shape &shape, const char *elem,
                       std::optional<int64_t> batchAxis = std::nullopt) {
  std::vector<std::string> dims;
  for (int64_t d : shape)
    dims.push_back(std::to_string(d));
  if (batchAxis)
    dims.insert(dims.begin() + *batchAxis, "{B}");
  std::string s = "tensor<";
  for (const std::string &d : dims)
    s += d + "x";
  return s + elem + ">";
}

std::string list(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string axesList(const std::vector<std::optional<int64_t>> &axes) {
  std::string s = "[";
  for (size_t i = 0; i < axes.size(); ++i)
    s += std::string(i ? ", " : "") +
         (axes[i] ? std::to_string(*axes[i]) + " : i64" : "unit");
  return s + "]";
}

struct Value {
  std::string name;
  Shape shape;
};

struct Result {
  std::string name;
  Shape shape;
  const char *elem;
};

class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}
  std::string run();

private:
  int64_t pick(int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
  }
  bool coin() { return pick(2) == 1; }
  std::string fresh() { return "%v" + std::to_string(counter++); }
  const Value &any() { return pool[pick(static_cast<int64_t>(pool.size()))]; }
  /// A value of `shape` from the pool (there is always one: the operands).
  const Value &sameShape(const Shape &shape) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < pool.size(); ++i)
      if (pool[i].shape == shape)
        candidates.push_back(i);
    return pool[candidates[pick(static_cast<int64_t>(candidates.size()))]];
  }
  void add(const std::string &name, Shape shape) {
    pool.push_back({name, std::move(shape)});
  }
  void step();
  bool elementwiseShapeOrLoopStep(const Value &a);
  std::string constant(const Shape &shape, const char *value) {
    std::string c = fresh();
    body << "  " << c << " = arr.constant dense<" << value
         << "> : " << tensorType(shape, "f32") << "\n";
    return c;
  }
  std::string cond(const Value &a);
  void forLoop(const Value &a);

  std::mt19937_64 rng;
  std::ostringstream body;
  std::vector<Value> pool;
  int counter = 0;
};

/// A bool of `a`'s shape: a comparison of `a` with another value, possibly
/// combined by not / and / or with a second comparison.
std::string Generator::cond(const Value &a) {
  std::string t = tensorType(a.shape, "f32");
  std::string tb = tensorType(a.shape, "i1");
  const char *preds[] = {"lt", "le", "gt", "ge", "eq", "ne"};
  auto cmp = [&]() {
    std::string c = fresh();
    body << "  " << c << " = arr.cmp " << preds[pick(6)] << ", " << a.name
         << ", " << sameShape(a.shape).name << " : " << t << " -> " << tb
         << "\n";
    return c;
  };
  std::string c = cmp();
  switch (pick(4)) {
  case 0:
    return c;
  case 1: {
    std::string n = fresh();
    body << "  " << n << " = arr.not " << c << " : " << tb << "\n";
    return n;
  }
  default: {
    std::string d = cmp(), r = fresh();
    body << "  " << r << " = arr." << (coin() ? "and" : "or") << " " << c
         << ", " << d << " : " << tb << "\n";
    return r;
  }
  }
}

/// A bounded loop: a const (a value of `a`'s shape), a carry of that shape
/// (init `a` or zeros) and a scalar carry; 0 to 3 iterations; the carries
/// may swap roles.
void Generator::forLoop(const Value &a) {
  std::string t = tensorType(a.shape, "f32");
  int64_t rank = static_cast<int64_t>(a.shape.size());
  const Value &k = sameShape(a.shape);
  std::string init = coin() ? a.name : constant(a.shape, "0.5");
  std::string s0 = coin() ? constant({}, "0.0") : std::string();
  int64_t trips = pick(4);
  std::string r = fresh();
  std::string st = tensorType({}, "f32");
  std::string idx = fresh(), kc = fresh(), c = fresh(), sc = fresh();
  bool scalar = !s0.empty();
  body << "  " << r << ":" << (scalar ? 2 : 1) << " = arr.for " << trips
       << " consts(" << k.name << " : " << t << ") iter_args(" << init
       << (scalar ? ", " + s0 : "") << " : " << t << (scalar ? ", " + st : "")
       << ") -> (" << t << (scalar ? ", " + st : "") << ") {\n";
  body << "  ^bb0(" << idx << ": tensor<i32>, " << kc << ": " << t << ", " << c
       << ": " << t << (scalar ? ", " + sc + ": " + st : "") << "):\n";
  std::string m = fresh(), fi = fresh(), fb = fresh(), ad = fresh(),
              c2 = fresh();
  body << "    " << m << " = arr.mul " << c << ", " << kc << " : " << t << "\n";
  body << "    " << fi << " = arr.convert " << idx
       << " : tensor<i32> -> tensor<f32>\n";
  body << "    " << fb << " = arr.broadcast_in_dim " << fi
       << ", dims = [] : (tensor<f32>) -> " << t << "\n";
  body << "    " << ad << " = arr.add " << m << ", " << fb << " : " << t
       << "\n";
  body << "    " << c2 << " = arr.tanh " << ad << " : " << t << "\n";
  std::string yielded = c2, yieldTypes = t;
  if (scalar) {
    std::string rs = c2;
    if (rank > 0) {
      rs = fresh();
      std::vector<int64_t> dims(rank);
      std::iota(dims.begin(), dims.end(), 0);
      body << "    " << rs << " = arr.reduce_sum " << c2
           << ", dims = " << list(dims) << " : (" << t << ") -> " << st << "\n";
    }
    std::string s2 = fresh();
    body << "    " << s2 << " = arr.add " << sc << ", " << rs << " : " << st
         << "\n";
    yielded += ", " + s2;
    yieldTypes += ", " + st;
  }
  body << "    arr.yield " << yielded << " : " << yieldTypes << "\n  }\n";
  add(r + "#0", a.shape);
  if (scalar)
    add(r + "#1", {});
}

/// One elementwise, shape or loop op on `a` (false when none fits).
bool Generator::elementwiseShapeOrLoopStep(const Value &a) {
  std::string t = tensorType(a.shape, "f32");
  int64_t rank = static_cast<int64_t>(a.shape.size());
  switch (pick(8)) {
  case 0: { // abs, sign.
    std::string r = fresh();
    body << "  " << r << " = arr." << (coin() ? "abs" : "sign") << " " << a.name
         << " : " << t << "\n";
    add(r, a.shape);
    return true;
  }
  case 1: { // maximum, minimum, pow (of |a|, by a bounded exponent).
    const Value &b = sameShape(a.shape);
    std::string r = fresh();
    int64_t which = pick(3);
    if (which < 2) {
      body << "  " << r << " = arr." << (which ? "maximum" : "minimum") << " "
           << a.name << ", " << b.name << " : " << t << "\n";
    } else {
      std::string base = fresh(), e = fresh();
      body << "  " << base << " = arr.abs " << a.name << " : " << t << "\n";
      body << "  " << e << " = arr.tanh " << b.name << " : " << t << "\n";
      body << "  " << r << " = arr.pow " << base << ", " << e << " : " << t
           << "\n";
    }
    add(r, a.shape);
    return true;
  }
  case 2: { // select on a condition built of cmp / not / and / or.
    std::string c = cond(a);
    std::string r = fresh();
    body << "  " << r << " = arr.select " << c << ", " << a.name << ", "
         << sameShape(a.shape).name << " : " << tensorType(a.shape, "i1")
         << ", " << t << "\n";
    add(r, a.shape);
    return true;
  }
  case 3: { // convert: f32 -> i32 (after scaling by 4) or bool -> f32.
    std::string ti = tensorType(a.shape, "i32");
    std::string r = fresh();
    if (coin()) {
      std::string four = constant(a.shape, "4.0");
      std::string m = fresh(), i = fresh(), ka = fresh();
      body << "  " << m << " = arr.mul " << a.name << ", " << four << " : " << t
           << "\n";
      body << "  " << i << " = arr.convert " << m << " : " << t << " -> " << ti
           << "\n";
      body << "  " << ka << " = arr." << (coin() ? "abs" : "sign") << " " << i
           << " : " << ti << "\n";
      body << "  " << r << " = arr.convert " << ka << " : " << ti << " -> " << t
           << "\n";
    } else {
      std::string b = fresh();
      body << "  " << b << " = arr.convert " << a.name << " : " << t << " -> "
           << tensorType(a.shape, "i1") << "\n";
      body << "  " << r << " = arr.convert " << b << " : "
           << tensorType(a.shape, "i1") << " -> " << t << "\n";
    }
    add(r, a.shape);
    return true;
  }
  case 4: { // concat of two or three values of one shape on a dimension.
    if (rank < 1)
      return false;
    int64_t d = pick(rank);
    if (a.shape[d] > 4)
      return false;
    std::vector<std::string> pieces = {a.name, sameShape(a.shape).name};
    if (coin())
      pieces.push_back(sameShape(a.shape).name);
    Shape shape = a.shape;
    shape[d] *= static_cast<int64_t>(pieces.size());
    std::string r = fresh(), names, types;
    for (size_t i = 0; i < pieces.size(); ++i) {
      names += (i ? ", " : "") + pieces[i];
      types += (i ? ", " : "") + t;
    }
    body << "  " << r << " = arr.concat " << names << " dim = " << d << " : ("
         << types << ") -> " << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return true;
  }
  case 5: { // slice: random start, a stride of +-1 or +-2, in bounds.
    if (rank < 1)
      return false;
    std::vector<int64_t> start, stride;
    Shape shape;
    for (int64_t n : a.shape) {
      int64_t s = (coin() ? 1 : 2) * (coin() ? 1 : -1);
      int64_t m = 1 + pick((n - 1) / std::abs(s) + 1);
      int64_t span = std::abs(s) * (m - 1);
      int64_t first = s > 0 ? pick(n - span) : span + pick(n - span);
      start.push_back(first);
      stride.push_back(s);
      shape.push_back(m);
    }
    std::string r = fresh();
    body << "  " << r << " = arr.slice " << a.name
         << ", start = " << list(start) << ", stride = " << list(stride)
         << " : (" << t << ") -> " << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return true;
  }
  case 6: { // iota added to a value.
    if (rank < 1)
      return false;
    std::string io = fresh(), r = fresh();
    body << "  " << io << " = arr.iota dim = " << pick(rank) << " : " << t
         << "\n";
    body << "  " << r << " = arr.add " << a.name << ", " << io << " : " << t
         << "\n";
    add(r, a.shape);
    return true;
  }
  case 7: // A loop.
    forLoop(a);
    return true;
  }
  return false;
}

void Generator::step() {
  Value a = any();
  std::string t = tensorType(a.shape, "f32");
  int64_t rank = static_cast<int64_t>(a.shape.size());
  // Half of the steps use an elementwise, shape or loop op.
  if (coin() && elementwiseShapeOrLoopStep(a))
    return;
  std::string r = fresh();
  switch (pick(7)) {
  case 0: { // Elementwise binary.
    Value b = sameShape(a.shape);
    const char *ops[] = {"add", "sub", "mul"};
    body << "  " << r << " = arr." << ops[pick(3)] << " " << a.name << ", "
         << b.name << " : " << t << "\n";
    add(r, a.shape);
    return;
  }
  case 1: { // Elementwise unary (bounded, so chains stay finite).
    const char *ops[] = {"tanh", "neg"};
    body << "  " << r << " = arr." << ops[pick(2)] << " " << a.name << " : "
         << t << "\n";
    add(r, a.shape);
    return;
  }
  case 2: { // Transpose.
    if (rank < 2)
      break;
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Shape shape;
    for (int64_t p : perm)
      shape.push_back(a.shape[p]);
    body << "  " << r << " = arr.transpose " << a.name
         << ", perm = " << list(perm) << " : (" << t << ") -> "
         << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return;
  }
  case 3: { // Reduction over a non-empty subset of the dimensions.
    if (rank < 1)
      break;
    std::vector<int64_t> dims;
    Shape shape;
    int64_t forced = pick(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == forced || pick(3) == 0)
        dims.push_back(d);
      else
        shape.push_back(a.shape[d]);
    }
    const char *ops[] = {"reduce_sum", "reduce_max", "reduce_min"};
    body << "  " << r << " = arr." << ops[pick(3)] << " " << a.name
         << ", dims = " << list(dims) << " : (" << t << ") -> "
         << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return;
  }
  case 4: { // broadcast_in_dim: a new dimension of size 2 somewhere.
    if (rank > 2)
      break;
    int64_t at = pick(rank + 1);
    Shape shape = a.shape;
    shape.insert(shape.begin() + at, 2);
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d < at ? d : d + 1);
    body << "  " << r << " = arr.broadcast_in_dim " << a.name
         << ", dims = " << list(dims) << " : (" << t << ") -> "
         << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return;
  }
  case 5: { // Reshape: flatten, or split an even 1-d size in two.
    Shape shape;
    if (rank >= 2) {
      int64_t n = 1;
      for (int64_t d : a.shape)
        n *= d;
      shape = {n};
    } else if (rank == 1 && a.shape[0] % 2 == 0) {
      shape = {2, a.shape[0] / 2};
    } else {
      break;
    }
    body << "  " << r << " = arr.reshape " << a.name << " : (" << t << ") -> "
         << tensorType(shape, "f32") << "\n";
    add(r, shape);
    return;
  }
  case 6: { // dot_general: contract the last dimensions of two values.
    if (rank < 1)
      break;
    // Any pool value whose last dimension matches, result rank <= 3.
    std::vector<size_t> candidates;
    for (size_t i = 0; i < pool.size(); ++i) {
      const Shape &s = pool[i].shape;
      if (!s.empty() && s.back() == a.shape.back() &&
          static_cast<int64_t>(s.size()) + rank - 2 <= 3)
        candidates.push_back(i);
    }
    if (candidates.empty())
      break;
    Value b = pool[candidates[pick(static_cast<int64_t>(candidates.size()))]];
    int64_t rankB = static_cast<int64_t>(b.shape.size());
    Shape shape(a.shape.begin(), a.shape.end() - 1);
    shape.insert(shape.end(), b.shape.begin(), b.shape.end() - 1);
    body << "  " << r << " = arr.dot_general " << a.name << ", " << b.name
         << ", lhs_batch = [], rhs_batch = [], lhs_contract = [" << rank - 1
         << "], rhs_contract = [" << rankB - 1 << "] : (" << t << ", "
         << tensorType(b.shape, "f32") << ") -> " << tensorType(shape, "f32")
         << "\n";
    add(r, shape);
    return;
  }
  }
  // The chosen op did not fit: an elementwise tanh instead.
  body << "  " << r << " = arr.tanh " << a.name << " : " << t << "\n";
  add(r, a.shape);
}

std::string Generator::run() {
  int64_t rank = 1 + pick(3);
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(2 + pick(3));
  add("%x", shape);
  add("%y", shape);

  int64_t steps = 3 + pick(5);
  for (int64_t i = 0; i < steps; ++i)
    step();

  std::vector<Result> results;
  results.push_back({pool.back().name, pool.back().shape, "f32"});
  // An argmin/argmax of some value of rank >= 1.
  if (coin()) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < pool.size(); ++i)
      if (!pool[i].shape.empty())
        candidates.push_back(i);
    Value v = pool[candidates[pick(static_cast<int64_t>(candidates.size()))]];
    int64_t axis = pick(static_cast<int64_t>(v.shape.size()));
    Shape s = v.shape;
    s.erase(s.begin() + axis);
    std::string r = fresh();
    body << "  " << r << " = arr." << (coin() ? "argmin" : "argmax") << " "
         << v.name << ", axis = " << axis << " : ("
         << tensorType(v.shape, "f32") << ") -> " << tensorType(s, "i32")
         << "\n";
    results.push_back({r, s, "i32"});
  }
  // An i32 result: a value scaled, converted, and combined with its sign.
  if (coin()) {
    Value v = any();
    std::string t = tensorType(v.shape, "f32"), ti = tensorType(v.shape, "i32");
    std::string four = constant(v.shape, "4.0");
    std::string m = fresh(), k = fresh(), sg = fresh(), r = fresh();
    body << "  " << m << " = arr.mul " << v.name << ", " << four << " : " << t
         << "\n";
    body << "  " << k << " = arr.convert " << m << " : " << t << " -> " << ti
         << "\n";
    body << "  " << sg << " = arr.sign " << k << " : " << ti << "\n";
    body << "  " << r << " = arr." << (coin() ? "maximum" : "minimum") << " "
         << k << ", " << sg << " : " << ti << "\n";
    results.push_back({r, v.shape, "i32"});
  }
  // A comparison of two values of one shape.
  if (coin()) {
    Value a = any();
    Value b = sameShape(a.shape);
    std::string r = fresh();
    const char *preds[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    body << "  " << r << " = arr.cmp " << preds[pick(6)] << ", " << a.name
         << ", " << b.name << " : " << tensorType(a.shape, "f32") << " -> "
         << tensorType(a.shape, "i1") << "\n";
    results.push_back({r, a.shape, "i1"});
  }

  // Random axes: an operand is unmapped one time in three, but not both.
  std::vector<std::optional<int64_t>> inAxes;
  for (int i = 0; i < 2; ++i)
    inAxes.push_back(pick(3) == 0 ? std::nullopt
                                  : std::optional<int64_t>(pick(rank + 1)));
  if (!inAxes[0] && !inAxes[1])
    inAxes[pick(2)] = pick(rank + 1);
  std::vector<std::optional<int64_t>> outAxes;
  for (const Result &r : results)
    outAxes.push_back(pick(static_cast<int64_t>(r.shape.size()) + 1));

  std::string operandTypes, batchedOperandTypes, resultTypes,
      batchedResultTypes, resultNames, returned;
  std::string t = tensorType(shape, "f32");
  for (size_t i = 0; i < results.size(); ++i) {
    const char *sep = i ? ", " : "";
    resultTypes += sep + tensorType(results[i].shape, results[i].elem);
    batchedResultTypes +=
        sep + tensorType(results[i].shape, results[i].elem, outAxes[i]);
    resultNames += sep + results[i].name;
    returned += std::string(sep) + "%r" + std::to_string(i);
  }
  std::string bx = tensorType(shape, "f32", inAxes[0]);
  std::string by = tensorType(shape, "f32", inAxes[1]);

  std::ostringstream os;
  os << "func.func private @f(%x: " << t << ", %y: " << t << ") -> ("
     << resultTypes << ") {\n"
     << body.str() << "  return " << resultNames << " : " << resultTypes
     << "\n}\n";
  os << "func.func @entry(%x: " << bx << ", %y: " << by << ") -> ("
     << batchedResultTypes << ") attributes {arr.batch = {B} : i64, "
     << "arr.in_axes = " << axesList(inAxes)
     << ", arr.out_axes = " << axesList(outAxes) << "} {\n";
  os << "  " << returned
     << " = arr.vmap_call @f(%x, %y) {in_axes = " << axesList(inAxes)
     << ", out_axes = " << axesList(outAxes) << ", axis_size = {B} : i64} : ("
     << bx << ", " << by << ") -> (" << batchedResultTypes << ")\n";
  os << "  return " << returned << " : " << batchedResultTypes << "\n}\n";
  return os.str();
}

} // namespace

std::string vmapc::oracle::test::randomProgram(uint64_t seed) {
  return Generator(seed).run();
}

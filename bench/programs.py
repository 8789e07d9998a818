"""The bench programs: their inputs and their numpy, JAX and reference twins.

Each row of bench/run.py's tables is a `Program`: a .arr file (its exported
entry's batch B is read from the file), a number N of examples, and for the
same function

  inputs(rng, n)   the inputs of N examples in the entry's manifest order,
                   as numpy arrays of the batched shapes vmapc-bench and the
                   runtime take (mapped inputs with N at their axis);
  reference(xs)    float64 (kNN: exact int64; histogram: exact int32)
                   outputs, one per output of the entry, the check's
                   yardstick;
  numpy(xs)        numpy's best form on the batch, float32: BLAS for the
                   contractions (`@`), in-place ufuncs where they save a pass;
  jax_fn, in_axes  the per-example function written as in the .arr file, for
                   jax.jit(jax.vmap(jax_fn, in_axes)) (JAX's own batching).

plus what the tables divide by: `flops(n)` for the rows bound by arithmetic
(2 per multiply-add, counted from the shapes as the program is written) and
`traffic_bytes(xs, outs)` = bytes of all inputs and outputs for the rows
bound by memory, or the row's own `traffic` (the embedding lookup), compared
with a memcpy moving the same bytes: read + write; and a row's own `goals`
where it has them (bench/README.md, "The tables").

The float check (bench/run.py) passes an output when every element is finite
and within FLOAT_TOLERANCE * max|reference| of the float64 reference; the
kNN indices must equal the exact int64 1-NN exactly.

Importing this file needs only the standard library; numpy is imported by
the functions that use it, JAX only by the `jax_fn`s.
"""

import gzip
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS_DIR = os.path.join(REPO_ROOT, "bench", "programs")
DIGITS = os.path.join(REPO_ROOT, "examples", "data", "digits.csv.gz")

# Max abs error allowed, relative to the largest |reference| of the output.
# f32 round-off over the longest reduction here (784 terms) is ~1e-6 of it;
# vectorised exp/tanh approximations add ~1e-6; a wrong epsilon, scale, bias
# or step count is 1e-3 or more with these inputs (see each program).
FLOAT_TOLERANCE = 1e-4

KINDS = ("knn", "contraction", "memory", "loop")


class Program:
    """One row. `kind`: "knn", "contraction" (MLPs, attention: % FMA peak,
    goal <= 1.2x the faster of numpy and JAX), "memory" (softmax, layer norm,
    the chain: fraction of memcpy, goal <= 0.8x each), "loop" (the
    recurrence: % FMA peak, goal <= 0.8x each)."""

    def __init__(self, name, arr, n, kind, inputs, reference, numpy, jax_fn,
                 in_axes, flops=None, title=None, traffic=None, goals=None,
                 gpu_bench=True):
        assert kind in KINDS
        self.name = name
        self.arr = arr
        self.n = n
        self.kind = kind
        self.inputs = inputs
        self.reference = reference
        self.numpy = numpy
        self.jax_fn = jax_fn
        self.in_axes = in_axes
        self.flops = flops
        self.title = title or name
        self.traffic = traffic
        # The row's own goal, overriding its kind's: [(against, bound)], with
        # against "numpy", "jax" (vmapc's time <= bound x theirs) or
        # "memcpy" (vmapc's rate >= bound x memcpy's).
        self.goals = goals
        # Whether bench/gpu_bench.py's table has the row (it takes rows of
        # one output whose inputs it can make at any N).
        self.gpu_bench = gpu_bench

    def traffic_bytes(self, xs, outs):
        """Bytes a memory row moves: its own `traffic(xs, outs)` where it
        has one (the embedding lookup), else all inputs and outputs."""
        if self.traffic is not None:
            return self.traffic(xs, outs)
        return sum(x.nbytes for x in xs) + sum(o.nbytes for o in outs)


def _normal(rng, shape, scale):
    import numpy as np

    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _uniform(rng, shape, lo, hi):
    import numpy as np

    return rng.uniform(lo, hi, shape).astype(np.float32)


# ----------------------------------------------------------------------------
# kNN on the digits (examples/knn_digits.arr): 797 queries, 1000 references.


def load_digits():
    """(pixels int64 [1797, 64], labels int64 [1797]) of the UCI digits."""
    import numpy as np

    with gzip.open(DIGITS, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    return table[:, :64], table[:, 64]


def knn_inputs(rng, n):
    import numpy as np

    pixels, _ = load_digits()
    q = pixels[1000:1000 + n].astype(np.float32)
    assert q.shape[0] == n, "the digits have 797 queries"
    return [q, pixels[:1000].astype(np.float32)]


def knn_reference(xs):
    """Exact 1-NN: int64 distances (pixels are integers 0-16), numpy's argmin
    takes the lowest index on ties, as the program's argmin does."""
    import numpy as np

    q, r = (x.astype(np.int64) for x in xs)
    d = (q * q).sum(1)[:, None] - 2 * (q @ r.T) + (r * r).sum(1)[None, :]
    return [d.argmin(1).astype(np.int32)]


def knn_numpy(xs):
    """The matmul form |q|^2 - 2 q.r + |r|^2 (BLAS), argmin; exact here only
    because the pixels are small integers (every float32 in it is exact)."""
    q, r = xs
    d = (q * q).sum(1)[:, None] - 2 * (q @ r.T) + (r * r).sum(1)[None, :]
    return [d.argmin(1).astype("int32")]


def knn_jax(q, refs):
    import jax
    import jax.numpy as jnp

    def sqdist(a, b):
        d = a - b
        return jnp.sum(d * d)

    return jnp.argmin(jax.vmap(sqdist, in_axes=(None, 0))(q, refs))


# ----------------------------------------------------------------------------
# tanh MLPs: x @ w1 + b1 -> tanh -> ... -> logits. Weights N(0, 1/fan_in),
# biases U(-0.1, 0.1), x U(-1, 1): pre-activations O(1), so tanh is neither
# linear nor saturated and a wrong layer shows.


def mlp_program(name, sizes, n, title):
    layers = list(zip(sizes[:-1], sizes[1:]))

    def inputs(rng, n):
        xs = [_uniform(rng, (n, sizes[0]), -1, 1)]
        for fan_in, fan_out in layers:
            xs.append(_normal(rng, (fan_in, fan_out), fan_in ** -0.5))
            xs.append(_uniform(rng, (fan_out,), -0.1, 0.1))
        return xs

    def reference(xs):
        import numpy as np

        h = xs[0].astype(np.float64)
        for i in range(len(layers)):
            w, b = xs[1 + 2 * i].astype(np.float64), xs[2 + 2 * i].astype(np.float64)
            h = h @ w + b
            if i + 1 < len(layers):
                h = np.tanh(h)
        return [h]

    def numpy_best(xs):
        import numpy as np

        h = xs[0]
        for i in range(len(layers)):
            h = h @ xs[1 + 2 * i]
            h += xs[2 + 2 * i]
            if i + 1 < len(layers):
                np.tanh(h, out=h)
        return [h]

    def jax_fn(x, *params):
        import jax.numpy as jnp

        h = x
        for i in range(len(layers)):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i + 1 < len(layers):
                h = jnp.tanh(h)
        return h

    def flops(n):
        return 2 * n * sum(a * b for a, b in layers)

    return Program(name, name + ".arr", n, "contraction", inputs, reference,
                   numpy_best, jax_fn, (0,) + (None,) * (2 * len(layers)),
                   flops, title)


# ----------------------------------------------------------------------------
# Softmax over 1000 classes: logits N(0, 2^2).


def softmax_inputs(rng, n):
    return [_normal(rng, (n, 1000), 2.0)]


def softmax_reference(xs):
    import numpy as np

    x = xs[0].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return [e / e.sum(1, keepdims=True)]


def softmax_numpy(xs):
    import numpy as np

    x = xs[0]
    e = x - x.max(1, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(1, keepdims=True)
    return [e]


def softmax_jax(x):
    import jax.numpy as jnp

    e = jnp.exp(x - jnp.max(x))
    return e / jnp.sum(e)


# ----------------------------------------------------------------------------
# Layer norm over 768 features, epsilon 1e-5 as in the .arr file. Rows are
# 0.5 + N(0, 0.03^2): variance ~9e-4, so the epsilon moves the result by
# ~0.5%, far above the tolerance (a wrong epsilon fails the check).

LAYERNORM_EPS = 1e-5


def layernorm_inputs(rng, n):
    import numpy as np

    x = (0.5 + rng.standard_normal((n, 768)) * 0.03).astype(np.float32)
    return [x, _normal(rng, (768,), 0.1) + 1, _normal(rng, (768,), 0.1)]


def layernorm_reference(xs):
    import numpy as np

    x, g, b = (a.astype(np.float64) for a in xs)
    d = x - x.mean(1, keepdims=True)
    v = (d * d).mean(1, keepdims=True)
    return [d / np.sqrt(v + LAYERNORM_EPS) * g + b]


def layernorm_numpy(xs):
    import numpy as np

    x, g, b = xs
    d = x - x.mean(1, keepdims=True)
    v = np.einsum("ij,ij->i", d, d)[:, None] / np.float32(768)
    v += np.float32(LAYERNORM_EPS)
    np.sqrt(v, out=v)
    d /= v
    d *= g
    d += b
    return [d]


def layernorm_jax(x, g, b):
    import jax.numpy as jnp

    d = x - jnp.mean(x)
    v = jnp.mean(d * d)
    return d / jnp.sqrt(v + LAYERNORM_EPS) * g + b


# ----------------------------------------------------------------------------
# Single-head attention, sequence 128, width 64, scale 1/8 = 1/sqrt(64).


def attention_inputs(rng, n):
    return [_uniform(rng, (n, 128, 64), -1, 1) for _ in range(3)]


def attention_reference(xs):
    import numpy as np

    q, k, v = (a.astype(np.float64) for a in xs)
    s = q @ k.transpose(0, 2, 1) * 0.125
    e = np.exp(s - s.max(2, keepdims=True))
    return [(e / e.sum(2, keepdims=True)) @ v]


def attention_numpy(xs):
    import numpy as np

    q, k, v = xs
    s = q @ k.transpose(0, 2, 1)
    s *= np.float32(0.125)
    s -= s.max(2, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(2, keepdims=True)
    return [s @ v]


def attention_jax(q, k, v):
    import jax
    import jax.numpy as jnp

    def softmax(s):
        e = jnp.exp(s - jnp.max(s))
        return e / jnp.sum(e)

    p = jax.vmap(softmax)(q @ k.T * 0.125)
    return p @ v


def attention_flops(n):
    return n * 2 * (2 * 128 * 128 * 64)


# ----------------------------------------------------------------------------
# Causal attention, sequence 128, width 64: scores above the diagonal are
# -inf before the softmax (jax.nn.softmax along each row).


def causal_attention_reference(xs):
    import numpy as np

    q, k, v = (a.astype(np.float64) for a in xs)
    s = q @ k.transpose(0, 2, 1) * 0.125
    causal = np.tril(np.ones((128, 128), dtype=bool))
    s = np.where(causal, s, -np.inf)
    e = np.exp(s - s.max(2, keepdims=True))
    return [(e / e.sum(2, keepdims=True)) @ v]


def causal_attention_numpy(xs):
    import numpy as np

    q, k, v = xs
    s = q @ k.transpose(0, 2, 1)
    s *= np.float32(0.125)
    s[:, ~np.tril(np.ones((128, 128), dtype=bool))] = -np.inf
    s -= s.max(2, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(2, keepdims=True)
    return [s @ v]


def causal_attention_jax(q, k, v):
    import jax
    import jax.numpy as jnp

    s = q @ k.T * 0.125
    causal = jnp.arange(128)[:, None] >= jnp.arange(128)[None, :]
    p = jax.nn.softmax(jnp.where(causal, s, -jnp.inf), axis=1)
    return p @ v


# ----------------------------------------------------------------------------
# Softmax cross-entropy over 1000 classes: -log_softmax(z)[label]. Logits
# N(0, 3^2), labels uniform.


def xent_inputs(rng, n):
    import numpy as np

    return [_normal(rng, (n, 1000), 3.0),
            rng.integers(0, 1000, n).astype(np.int32)]


def xent_reference(xs):
    import numpy as np

    z = xs[0].astype(np.float64)
    m = z.max(1)
    lse = np.log(np.exp(z - m[:, None]).sum(1)) + m
    return [lse - z[np.arange(len(z)), xs[1]]]


def xent_numpy(xs):
    import numpy as np

    z, label = xs
    m = z.max(1)
    e = np.exp(z - m[:, None])
    lse = np.log(e.sum(1)) + m
    return [lse - z[np.arange(len(z)), label]]


def xent_jax(z, label):
    import jax

    return -jax.nn.log_softmax(z)[label]


# ----------------------------------------------------------------------------
# The elementwise chain tanh(x * a + b) * c over 4096 values; a, b, c shared.

CHAIN_A, CHAIN_B, CHAIN_C = 0.75, 0.1, 1.5


def chain_inputs(rng, n):
    import numpy as np

    return [_uniform(rng, (n, 4096), -2, 2), np.float32(CHAIN_A).reshape(()),
            np.float32(CHAIN_B).reshape(()), np.float32(CHAIN_C).reshape(())]


def chain_reference(xs):
    import numpy as np

    x, a, b, c = (v.astype(np.float64) for v in xs)
    return [np.tanh(x * a + b) * c]


def chain_numpy(xs):
    import numpy as np

    x, a, b, c = xs
    y = np.multiply(x, a)
    y += b
    np.tanh(y, out=y)
    y *= c
    return [y]


def chain_jax(x, a, b, c):
    import jax.numpy as jnp

    return jnp.tanh(x * a + b) * c


# ----------------------------------------------------------------------------
# The loop: 20 steps of h = tanh(W @ h + U @ x) from h = 0; hidden 64, input
# 32. W N(0, 0.9^2/64) (spectral radius ~0.9: the recurrence neither blows
# up nor forgets the input), U N(0, 1/32), x U(-1, 1).

RNN_STEPS = 20


def rnn_inputs(rng, n):
    return [_uniform(rng, (n, 32), -1, 1), _normal(rng, (64, 64), 0.9 / 8),
            _normal(rng, (64, 32), 32 ** -0.5)]


def rnn_reference(xs):
    import numpy as np

    x, w, u = (a.astype(np.float64) for a in xs)
    h = np.zeros((x.shape[0], 64))
    for _ in range(RNN_STEPS):
        h = np.tanh(h @ w.T + x @ u.T)
    return [h]


def rnn_numpy(xs):
    """U @ x does not change across steps: computed once (hoisted), as a
    person writing numpy would."""
    import numpy as np

    x, w, u = xs
    ux = x @ u.T
    h = np.zeros((x.shape[0], 64), np.float32)
    wt = np.ascontiguousarray(w.T)
    for _ in range(RNN_STEPS):
        h = h @ wt
        h += ux
        np.tanh(h, out=h)
    return [h]


def rnn_jax(x, w, u):
    import jax
    import jax.numpy as jnp

    return jax.lax.fori_loop(0, RNN_STEPS, lambda i, h: jnp.tanh(w @ h + u @ x),
                             jnp.zeros((64,), jnp.float32))


def rnn_flops(n):
    """As written: both products on every step (20 x (64x64 + 64x32) x 2)."""
    return n * RNN_STEPS * 2 * (64 * 64 + 64 * 32)


# ----------------------------------------------------------------------------
# Embedding lookup: take(table, ids, axis=0), the 16 rows an example's ids
# name from a shared 50000 x 64 table (12.8 MB, larger than the L2), ids
# uniform over the table. The bytes counted are those a copy of the result
# moves: each gathered row read once and written once, and the ids read
# (the table is not streamed: a row may be read several times or never).

EMBED_VOCAB, EMBED_WIDTH, EMBED_IDS = 50000, 64, 16


def embed_inputs(rng, n):
    import numpy as np

    table = _normal(rng, (EMBED_VOCAB, EMBED_WIDTH), 1.0)
    ids = rng.integers(0, EMBED_VOCAB, (n, EMBED_IDS)).astype(np.int32)
    return [table, ids]


def embed_reference(xs):
    import numpy as np

    table, ids = xs
    return [table.astype(np.float64)[ids.astype(np.int64)]]


def embed_numpy(xs):
    import numpy as np

    table, ids = xs
    return [np.take(table, ids, axis=0)]


def embed_jax(table, ids):
    import jax.numpy as jnp

    return jnp.take(table, ids, axis=0)


def embed_traffic(xs, outs):
    return xs[1].nbytes + 2 * sum(o.nbytes for o in outs)


# ----------------------------------------------------------------------------
# Histogram by .at[].add in a loop: 256 values in [0, 32) per example, 32
# bins (int32 counts, checked exactly).

HIST_VALUES, HIST_BINS = 256, 32


def histogram_inputs(rng, n):
    import numpy as np

    return [rng.integers(0, HIST_BINS, (n, HIST_VALUES)).astype(np.int32)]


def histogram_reference(xs):
    import numpy as np

    x = xs[0].astype(np.int64)
    return [np.stack([np.bincount(row, minlength=HIST_BINS) for row in x])
            .astype(np.int32)]


def histogram_numpy(xs):
    """One bincount over all examples, each example's values offset into
    its own 32 bins."""
    import numpy as np

    x = xs[0]
    n = x.shape[0]
    flat = (x + (np.arange(n, dtype=np.int32) * HIST_BINS)[:, None]).ravel()
    return [np.bincount(flat, minlength=n * HIST_BINS)
            .reshape(n, HIST_BINS).astype(np.int32)]


def histogram_jax(x):
    import jax
    import jax.numpy as jnp

    return jax.lax.fori_loop(0, HIST_VALUES, lambda t, h: h.at[x[t]].add(1),
                             jnp.zeros((HIST_BINS,), jnp.int32))


# ----------------------------------------------------------------------------
# DP-SGD's per-example step (examples/dpsgd_digits.arr): each example's
# softmax-regression gradient (W 10 x 64, b 10) clipped to L2 norm 1, and its
# loss, for one batch of 256 training digits (rows 0-255, pixels 0-16) at
# W ~ N(0, 0.05^2), b ~ U(-1.5, 1.5) (as examples/dpsgd_digits_check.py):
# the softmax is neither uniform nor one-hot and every gradient is clipped.

DPSGD_ARR = os.path.join(REPO_ROOT, "examples", "dpsgd_digits.arr")


def dpsgd_inputs(rng, n):
    import numpy as np

    pixels, labels = load_digits()
    assert n <= 1000, "the training rows are 0-999"
    w = _normal(rng, (10, 64), 0.05)
    b = _uniform(rng, (10,), -1.5, 1.5)
    return [w, b, pixels[:n].astype(np.float32), labels[:n].astype(np.int32)]


def dpsgd_reference(xs):
    import numpy as np

    w, b, x = (a.astype(np.float64) for a in xs[:3])
    y = xs[3].astype(np.int64)
    rows = np.arange(len(y))
    logits = x @ w.T + b
    z = logits - logits.max(1, keepdims=True)
    s = np.exp(z).sum(1)
    g = np.exp(z) / s[:, None]
    g[rows, y] -= 1.0
    gw = g[:, :, None] * x[:, None, :]
    norm = np.sqrt((gw * gw).sum((1, 2)) + (g * g).sum(1))
    scale = 1.0 / np.maximum(norm, 1.0)
    return [gw * scale[:, None, None], g * scale[:, None],
            np.log(s) - z[rows, y]]


def dpsgd_numpy(xs):
    """Batched closed form in float32: the clip's norm from |g x^T|^2 =
    |g|^2 |x|^2 (no pass over the outer products), the scale folded into g
    before the one outer product."""
    import numpy as np

    w, b, x, y = xs
    rows = np.arange(len(y))
    z = x @ w.T
    z += b
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    s = e.sum(1)
    loss = np.log(s) - z[rows, y]
    e /= s[:, None]
    e[rows, y] -= 1.0
    sq = np.einsum("ij,ij->i", e, e) * (np.einsum("ij,ij->i", x, x) + 1)
    e *= (1.0 / np.maximum(np.sqrt(sq), 1.0))[:, None]
    return [e[:, :, None] * x[:, None, :], e, loss]


def dpsgd_jax(w, b, x, y):
    """What a JAX user writes: value_and_grad of the loss, then the clip."""
    import jax
    import jax.numpy as jnp

    def loss(w, b):
        logits = w @ x + b
        return jax.nn.logsumexp(logits) - logits[y]

    value, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b)
    norm = jnp.sqrt(jnp.sum(gw * gw) + jnp.sum(gb * gb))
    scale = 1.0 / jnp.maximum(norm, 1.0)
    return gw * scale, gb * scale, value


def dpsgd_flops(n):
    """As written, per example: W x (2 per multiply-add), the outer product
    (1 per element), its squares summed (2), the scaling (1); the 10-wide
    softmax is left out."""
    return n * (2 * 640 + 640 + 2 * 640 + 640)


# ----------------------------------------------------------------------------
# Cosine similarity of each query against a shared set, as a user writes it:
# sum(a * b) / sqrt(sum(a * a) * sum(b * b)) under a nested vmap (queries
# mapped, the set shared); 64-wide vectors, a set of 1000, N(0, 1) entries
# plus a shared direction (cosines from about -0.6 to 0.8, median 0.3: not all
# near 0).

COSINE_WIDTH, COSINE_SET = 64, 1000


def cosine_inputs(rng, n):
    import numpy as np

    d = rng.standard_normal(COSINE_WIDTH)
    q = rng.standard_normal((n, COSINE_WIDTH)) + d * rng.uniform(0, 1, (n, 1))
    s = rng.standard_normal((COSINE_SET, COSINE_WIDTH)) + d
    return [q.astype(np.float32), s.astype(np.float32)]


def cosine_reference(xs):
    import numpy as np

    q, s = (a.astype(np.float64) for a in xs)
    qq, ss = (q * q).sum(1), (s * s).sum(1)
    return [(q @ s.T) / np.sqrt(qq[:, None] * ss[None, :])]


def cosine_numpy(xs):
    """Each side scaled to unit length, then one BLAS product (the same
    value up to rounding: a.b / (|a| |b|))."""
    import numpy as np

    q, s = xs
    qn = q / np.sqrt(np.einsum("ij,ij->i", q, q))[:, None]
    sn = s / np.sqrt(np.einsum("ij,ij->i", s, s))[:, None]
    return [qn @ sn.T]


def cosine_jax(q, s):
    import jax
    import jax.numpy as jnp

    def cosine(a, b):
        return jnp.sum(a * b) / jnp.sqrt(jnp.sum(a * a) * jnp.sum(b * b))

    return jax.vmap(cosine, in_axes=(None, 0))(q, s)


def cosine_flops(n):
    """The contraction: 2 per multiply-add of a . b for every (query, set
    row) pair, and the two squared norms once per vector (as written they
    are per pair, 3x the work; numpy computes them once, so counting them
    per pair would put numpy above the peak)."""
    return 2 * COSINE_WIDTH * (n * COSINE_SET + n + COSINE_SET)


# ----------------------------------------------------------------------------
# The per-example gradient of a linear model's squared error with respect to
# its weights: p = sum(x * w) (w shared), then (p - y) * x; 784 features
# U(-1, 1), w N(0, 1/784), targets U(-1, 1): residuals O(1), neither zero
# nor all of one sign.

LINGRAD_FEATURES = 784


def lingrad_inputs(rng, n):
    return [_uniform(rng, (n, LINGRAD_FEATURES), -1, 1),
            _normal(rng, (LINGRAD_FEATURES,), LINGRAD_FEATURES ** -0.5),
            _uniform(rng, (n,), -1, 1)]


def lingrad_reference(xs):
    import numpy as np

    x, w, y = (a.astype(np.float64) for a in xs)
    return [(x @ w - y)[:, None] * x]


def lingrad_numpy(xs):
    """x @ w (BLAS matrix-vector), the residual in place, one broadcast
    multiply."""
    import numpy as np

    x, w, y = xs
    r = x @ w
    r -= y
    return [np.multiply(x, r[:, None])]


def lingrad_jax(x, w, y):
    import jax.numpy as jnp

    return (jnp.sum(x * w) - y) * x


# ----------------------------------------------------------------------------
# The table, in the order bench/README.md lists its rows.

KNN_ARR = os.path.join(REPO_ROOT, "examples", "knn_digits.arr")

PROGRAMS = [
    Program("knn_digits", KNN_ARR, 797, "knn", knn_inputs, knn_reference,
            knn_numpy, knn_jax, (0, None),
            flops=lambda n: n * 1000 * 64 * 3, title="kNN digits"),
    mlp_program("mlp_64_32_10", [64, 32, 10], 8192, "MLP 64-32-10"),
    mlp_program("mlp_256_256_10", [256, 256, 10], 8192, "MLP 256-256-10"),
    mlp_program("mlp_784_512_512_10", [784, 512, 512, 10], 8192,
                "MLP 784-512-512-10"),
    Program("softmax_1000", "softmax_1000.arr", 8192, "memory", softmax_inputs,
            softmax_reference, softmax_numpy, softmax_jax, (0,),
            title="softmax 1000"),
    Program("layernorm_768", "layernorm_768.arr", 8192, "memory",
            layernorm_inputs, layernorm_reference, layernorm_numpy,
            layernorm_jax, (0, None, None), title="layer norm 768"),
    Program("attention_128x64", "attention_128x64.arr", 256, "contraction",
            attention_inputs, attention_reference, attention_numpy,
            attention_jax, (0, 0, 0), attention_flops,
            title="attention 128x64"),
    Program("causal_attention_128x64", "causal_attention_128x64.arr", 256,
            "contraction", attention_inputs, causal_attention_reference,
            causal_attention_numpy, causal_attention_jax, (0, 0, 0),
            attention_flops, title="causal attention 128x64",
            goals=[("jax", 1.0)]),
    Program("xent_1000", "xent_1000.arr", 8192, "memory", xent_inputs,
            xent_reference, xent_numpy, xent_jax, (0, 0),
            title="log-softmax cross-entropy 1000", goals=[("jax", 1.0)]),
    Program("chain_4096_n256", "chain_4096.arr", 256, "memory", chain_inputs,
            chain_reference, chain_numpy, chain_jax, (0, None, None, None),
            title="chain 4096, N=256"),
    Program("chain_4096_n8192", "chain_4096.arr", 8192, "memory", chain_inputs,
            chain_reference, chain_numpy, chain_jax, (0, None, None, None),
            title="chain 4096, N=8192"),
    Program("rnn_loop", "rnn_loop.arr", 8192, "loop", rnn_inputs,
            rnn_reference, rnn_numpy, rnn_jax, (0, None, None), rnn_flops,
            title="loop (20 x tanh RNN)"),
    Program("embed_lookup", "embed_lookup.arr", 8192, "memory", embed_inputs,
            embed_reference, embed_numpy, embed_jax, (None, 0),
            title="embedding lookup 16 of 50000x64", traffic=embed_traffic,
            goals=[("jax", 1.0), ("memcpy", 0.6)]),
    Program("histogram", "histogram.arr", 8192, "loop", histogram_inputs,
            histogram_reference, histogram_numpy, histogram_jax, (0,),
            title="histogram 256 into 32 (.at[].add loop)",
            goals=[("jax", 1.0)]),
    Program("dpsgd_step", DPSGD_ARR, 256, "contraction", dpsgd_inputs,
            dpsgd_reference, dpsgd_numpy, dpsgd_jax, (None, None, 0, 0),
            dpsgd_flops, title="DP-SGD per-example grads, B=256",
            goals=[("jax", 1.0)], gpu_bench=False),
    Program("cosine_64x1000", "cosine_64x1000.arr", 8192, "contraction",
            cosine_inputs, cosine_reference, cosine_numpy, cosine_jax,
            (0, None), cosine_flops,
            title="cosine vs shared set 64x1000 (nested vmap)"),
    Program("linear_grad_784", "linear_grad_784.arr", 8192, "memory",
            lingrad_inputs, lingrad_reference, lingrad_numpy, lingrad_jax,
            (0, None, 0), title="per-example linear-model gradient 784",
            goals=[("numpy", 0.8), ("jax", 0.8), ("memcpy", 0.7)]),
]


def arr_path(program):
    return program.arr if os.path.isabs(program.arr) else os.path.join(
        PROGRAMS_DIR, program.arr)


def by_name(name):
    for p in PROGRAMS:
        if p.name == name:
            return p
    raise KeyError(f"no bench program '{name}'; programs are: "
                   + ", ".join(p.name for p in PROGRAMS))

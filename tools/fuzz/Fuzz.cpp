#include "Fuzz.hpp"

#include "FuzzCube.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <pto/pto.hpp>

namespace pto::fuzz {
namespace {

namespace pl = pto::lang;

// ------------------------------------------------------------------------------- the case model

enum class Op : uint8_t { X, Y, Const, Param, Add, Sub, Mul, Div, Max, Min, Neg, Abs, Relu, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Erf, Sin, Cos, CastVia, Select,
                          And, Or, Xor, Shl, Shr, Not, Pow };

struct Node {
  Op op = Op::X;
  double value = 0;     // Const
  DType via = DType::f32;  // CastVia: the dtype the value passes through
  pl::RoundMode round = pl::RoundMode::Default;  // CastVia: how both conversions round
  int cmp = 0;          // Select: 0 <, 1 <=, 2 >, 3 >=, 4 ==, 5 !=
  std::vector<int> kids;
};

/// One expression (with an optional row reduction whose result is broadcast back).
struct Expr {
  std::vector<Node> nodes;
  int root = 0;
  int reduce = -1;  // -1: none; 0-2: row sum/max/min, 3-5: column sum/max/min: the output is root - reduce(root) (broadcast);
                    // 6-9: row argmax/argmin, column argmax/argmin: the output is root * 0 + the index (broadcast)
  int part = -1;    // -1: none; else partadd/partmax/partmin/partmul of root with a partial copy of x
  bool part_first = false;  // the partial copy is src0 (else src1)
  int via = 0;      // with no reduce and no part: 0 none; the root passed on through 1 gathermask(pattern 7), 2 fillpad,
                    // 3 getval / setval (the last valid element takes the first's value), 4 transposed and back,
                    // 5 plus an iota starting at the batch's param, 6 row 0 rewritten through tile views (the last valid
                    // row, at a runtime offset, plus its first element broadcast along the row), 7 through a
                    // pl::vector_function (a register stored twice and reduced per row), 8 its row sums
                    // subtracted (layernorm's centring: a run that computes the root where it is read,
                    // TileInlining.hpp)
};

constexpr const char* kPartOps[] = {"partadd", "partmax", "partmin", "partmul"};

/// A batch of expressions sharing one kernel: dtype, shapes, tiles, depth, block_dim, data.
struct Batch {
  DType dtype = DType::f32;
  int64_t rows = 1, cols = 1, tile_rows = 1, tile_cols = 8;
  int depth = 1, block_dim = 1;
  int64_t param = 3;
  uint64_t data_seed = 1;
  std::vector<Expr> exprs;
  bool relu_store = false;  // the stores take relu_pre_mode = NormalRelu
  bool meet = false;        // the blocks sync_all after their tile loop
  bool dynamic = false;     // x, y, z declared pl::Tensor<T, pl::DYNAMIC, pl::DYNAMIC>: extents at run time
  int view = 0;             // x and y as host views: 0 contiguous, 1 permuted (column-strided), 2 selected from a 3-D tensor
  bool placed = false;      // xs, ys, zs at explicit addresses (pl::Addrs), in reverse order from a high base
  bool dn_tiles = false;    // with permuted views (view 1): xs and ys are DN tiles, loaded column by column
  bool reload = false;      // x and y are loaded again before each expression after the first, so every
                            // expression reads its operands right after their loads (load elision)

  /// The addresses of group `which` (0 xs, 1 ys, 2 zs) when placed: slots two slot sizes apart.
  std::vector<int64_t> addrs(int which, int64_t elem_bytes) const {
    const int64_t slot = (tile_rows * tile_cols * elem_bytes + 31) / 32 * 32, step = 2 * slot, base = 0x8000 + (2 - which) * depth * step;
    std::vector<int64_t> out;
    for (int s = 0; s < depth; ++s) out.push_back(base + s * step);
    return out;
  }
};

bool floating(DType t) { return is_floating(t); }

// ------------------------------------------------------------------------------- generation

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Batch batch(int n) {
    Batch b;
    static constexpr DType kTypes[] = {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i8};
    b.dtype = kTypes[pick(5)];
    const int64_t per_block = 32 / static_cast<int64_t>(dtype_size(b.dtype));
    b.rows = 1 + pick(24);
    b.cols = 1 + pick(200);
    b.tile_rows = 1 + pick(6);
    b.tile_cols = per_block * (1 + pick(static_cast<int>(128 / per_block)));
    b.depth = 1 + pick(3);
    b.block_dim = 1 + pick(6);
    b.param = static_cast<int64_t>(pick(9)) - 4;
    b.data_seed = rng_();
    for (int i = 0; i < n; ++i) b.exprs.push_back(expr(b.dtype));
    b.relu_store = pick(4) == 0;
    b.meet = pick(8) == 0;
    b.dynamic = pick(3) == 0;
    b.view = pick(4) != 0 ? 0 : b.dynamic ? 2 : 1 + pick(2);  // a non-contiguous view cannot take dynamic dimensions
    b.placed = pick(4) == 0;
    // A permuted view of one row or column is also row-major (a dimension of 1 has any stride), which
    // a DN tile rejects: DN tiles only for views of two real dimensions.
    b.dn_tiles = b.view == 1 && pick(2) == 0 && b.rows > 1 && b.cols > 1;
    b.reload = pick(2) == 0;
    return b;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

  Expr expr(DType t) {
    Expr e;
    e.root = node(e, t, 0);
    if (pick(4) == 0) {
      // Row sums (one fixed order, docs/semantics.md), max and min, and column ones, for every dtype.
      e.reduce = pick(10);
    } else if (pick(6) == 0) {
      // PyPTO Pro's partial ops: the root combined with x over a smaller valid extent.
      e.part = pick(4);
      e.part_first = pick(2) == 0;
    } else if (pick(6) == 0) {
      // The vector routines that keep the data (a copy through gathermask, fillpad of the tail), or
      // one element rewritten on the scalar pipe, a transpose and back, an iota added, views.
      e.via = 1 + pick(8);
    }
    return e;
  }

  int add(Expr& e, Node n) {
    e.nodes.push_back(std::move(n));
    return static_cast<int>(e.nodes.size()) - 1;
  }

  int node(Expr& e, DType t, int depth) {
    if (depth >= 4 || pick(3) == 0) {
      const int k = pick(6);
      if (k < 2) return add(e, {Op::X});
      if (k < 4) return add(e, {Op::Y});
      if (k == 4) return add(e, {Op::Param});
      Node c{Op::Const};
      c.value = floating(t) ? std::round((static_cast<double>(pick(2001)) - 1000) / 125.0 * 8) / 8 : static_cast<double>(pick(21) - 10);
      return add(e, c);
    }
    // The first 13 for every dtype, then the float-only functions or the integer-only bitwise ops.
    static constexpr Op kOps[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Neg, Op::Abs, Op::Relu,
                                  Op::CastVia, Op::Select, Op::Add, Op::Mul, Op::Exp, Op::Log, Op::Sqrt, Op::Rsqrt,
                                  Op::Tanh, Op::Sigmoid, Op::Erf, Op::Sin, Op::Cos, Op::Pow};
    static constexpr Op kIntOps[] = {Op::And, Op::Or, Op::Xor, Op::Shl, Op::Shr, Op::Not};
    const int k = pick(floating(t) ? 23 : 19);
    Node n{k < 13 || floating(t) ? kOps[k] : kIntOps[k - 13]};
    switch (n.op) {
      case Op::Neg: case Op::Abs: case Op::Relu: case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt:
      case Op::Tanh: case Op::Sigmoid: case Op::Erf: case Op::Sin: case Op::Cos: case Op::Not:
        n.kids = {node(e, t, depth + 1)};
        break;
      case Op::CastVia: {
        static constexpr DType kVia[] = {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i8};
        n.via = kVia[pick(5)];
        // One in four through one of PyPTO Pro's modes (their code is longer to compile), else the language's rule.
        if (pick(4) == 0) n.round = static_cast<pl::RoundMode>(1 + pick(7));
        n.kids = {node(e, t, depth + 1)};
        break;
      }
      case Op::Select:
        n.cmp = pick(6);
        n.kids = {node(e, t, depth + 1), node(e, t, depth + 1), node(e, t, depth + 1), node(e, t, depth + 1)};
        break;
      default:
        n.kids = {node(e, t, depth + 1), node(e, t, depth + 1)};
    }
    return add(e, n);
  }

  std::mt19937_64 rng_;
};

// ------------------------------------------------------------------------------- tracing a batch

template <class T>
struct Build {
  const Expr& e;
  const pl::Tile<T>& x;
  const pl::Tile<T>& y;
  const pl::Int& n;

  pl::TExpr<T> operator()(int i) const {
    const Node& d = e.nodes[i];
    auto kid = [&](int k) { return (*this)(d.kids[k]); };
    switch (d.op) {
      case Op::X: return x * 1;  // a copy of the tile as an expression (x * 1 is exact in every dtype)
      case Op::Y: return y * 1;
      case Op::Param: return x * 0 + n;
      case Op::Const:
        if constexpr (is_floating(dtype_of<T>)) {
          return x * 0 + d.value;
        } else {
          return x * 0 + static_cast<int64_t>(d.value);
        }
      case Op::Add: return kid(0) + kid(1);
      case Op::Sub: return kid(0) - kid(1);
      case Op::Mul: return kid(0) * kid(1);
      case Op::Div: return kid(0) / kid(1);
      case Op::Max: return pl::max(kid(0), kid(1));
      case Op::Min: return pl::min(kid(0), kid(1));
      case Op::Neg: return -kid(0);
      case Op::Abs: return pl::abs(kid(0));
      case Op::Relu: return pl::relu(kid(0));
      case Op::CastVia: return via(kid(0), d.via, d.round);
      case Op::Select: {
        auto a = kid(0), b = kid(1);
        pl::Mask m = d.cmp == 0 ? a < b : d.cmp == 1 ? a <= b : d.cmp == 2 ? a > b : d.cmp == 3 ? a >= b : d.cmp == 4 ? a == b : a != b;
        return pl::select(m, kid(2), kid(3));
      }
      default: break;
    }
    if constexpr (!is_floating(dtype_of<T>)) {
      switch (d.op) {
        case Op::And: return kid(0) & kid(1);
        case Op::Or: return kid(0) | kid(1);
        case Op::Xor: return kid(0) ^ kid(1);
        case Op::Shl: return kid(0) << kid(1);
        case Op::Shr: return kid(0) >> kid(1);
        case Op::Not: return ~kid(0);
        default: break;
      }
    }
    if constexpr (is_floating(dtype_of<T>)) {
      switch (d.op) {
        case Op::Exp: return pl::exp(kid(0));
        case Op::Log: return pl::log(kid(0));
        case Op::Sqrt: return pl::sqrt(kid(0));
        case Op::Rsqrt: return pl::rsqrt(kid(0));
        case Op::Tanh: return pl::tanh(kid(0));
        case Op::Sigmoid: return pl::sigmoid(kid(0));
        case Op::Erf: return pl::erf(kid(0));
        case Op::Sin: return pl::sin(kid(0));
        case Op::Cos: return pl::cos(kid(0));
        case Op::Pow: return pl::pow(kid(0), kid(1));
        default: break;
      }
    }
    return x * 1;
  }

  static pl::TExpr<T> via(const pl::TExpr<T>& v, DType u, pl::RoundMode m) {
    switch (u) {
      case DType::f32: return pl::cast<T>(pl::cast<float>(v, m), m);
      case DType::f16: return pl::cast<T>(pl::cast<half>(v, m), m);
      case DType::bf16: return pl::cast<T>(pl::cast<bfloat16>(v, m), m);
      case DType::i32: return pl::cast<T>(pl::cast<int32_t>(v, m), m);
      default: return pl::cast<T>(pl::cast<int8_t>(v, m), m);
    }
  }
};

/// The batch's kernel with tensor parameters of type `P`: pl::Tensor<T> (static shapes) or with
/// both dimensions pl::DYNAMIC (the same body; extents are then runtime values).
template <class T, class P>
auto make_kernel(const Batch& b, bool interpret) {
  return pl::jit({.name = interpret ? "fuzz_interp" : "fuzz_jit", .auto_mutex = true, .interpret = interpret},
                 [b](P x, P y, P z, pl::Int n) {
    std::vector<int> slots(b.depth);
    for (int s = 0; s < b.depth; ++s) slots[s] = s;
    auto group = [&](int which) {
      pl::TileOptions options{.layout = b.dn_tiles && which < 2 ? pl::DN : pl::ND};
      if (b.placed) options.addrs = b.addrs(which, static_cast<int64_t>(sizeof(T)));
      return pl::make_tile_group<T>(pl::Vec, {b.tile_rows, b.tile_cols}, slots, options);
    };
    auto xs = group(0);
    auto ys = group(1);
    auto zs = group(2);
    auto red = pl::make_tile<T>(pl::Vec, {b.tile_rows, 1});
    auto col_red = pl::make_tile<T>(pl::Vec, {1, b.tile_cols});
    auto arg_rows = pl::make_tile<int32_t>(pl::Vec, {b.tile_rows, 1});
    auto arg_cols = pl::make_tile<int32_t>(pl::Vec, {1, b.tile_cols});
    auto part_src = pl::make_tile<T>(pl::Vec, {b.tile_rows, b.tile_cols});
    auto part_out = pl::make_tile<T>(pl::Vec, {b.tile_rows, b.tile_cols});
    auto pad_out = pl::make_tile<T>(pl::Vec, {b.tile_rows, b.tile_cols}, pl::TilePad::Max);
    auto transposed = pl::make_tile<T>(pl::Vec, {b.tile_cols, b.tile_rows});
    auto centred = pl::make_tile<T>(pl::Vec, {b.tile_rows, b.tile_cols});
    const pl::Int rows = x.extent(0), cols = x.extent(1);  // constants unless dynamic
    const pl::Int col_tiles = pl::ceil_div(cols, b.tile_cols);
    const pl::Int tiles = pl::ceil_div(rows, b.tile_rows) * col_tiles;
    for (auto t : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      auto r0 = t / col_tiles * b.tile_rows, c0 = t % col_tiles * b.tile_cols;
      auto nr = pl::min(b.tile_rows, rows - r0), nc = pl::min(b.tile_cols, cols - c0);
      pl::load(xs.current(), x.slice(r0, nr, c0, nc));
      pl::load(ys.current(), y.slice(r0, nr, c0, nc));
      for (size_t i = 0; i < b.exprs.size(); ++i) {
        const Expr& e = b.exprs[i];
        if (i > 0 && b.reload) {
          pl::load(xs.current(), x.slice(r0, nr, c0, nc));
          pl::load(ys.current(), y.slice(r0, nr, c0, nc));
        }
        auto value = Build<T>{e, xs.current(), ys.current(), n}(e.root);
        auto out = zs.current();
        if (e.part >= 0) {
          zs.current() = value;
          part_src = xs.current();
          pl::set_validshape(part_src, pl::max(1, nr - 1), pl::max(1, nc / 2));
          const auto& src0 = e.part_first ? part_src : zs.current();
          const auto& src1 = e.part_first ? zs.current() : part_src;
          static constexpr void (*kPart[])(const pl::Tile<T>&, const pl::Tile<T>&, const pl::Tile<T>&, std::source_location) = {
              pl::partadd<T>, pl::partmax<T>, pl::partmin<T>, pl::partmul<T>};
          kPart[e.part](part_out, src0, src1, std::source_location::current());
          out = part_out;
        } else if (e.reduce < 0) {
          zs.current() = value;
          if (e.via == 1) {
            pl::gathermask(part_out, zs.current(), {.pattern_mode = 7});
            out = part_out;
          } else if (e.via == 2) {
            pl::fillpad(pad_out, zs.current());
            out = pad_out;
          } else if (e.via == 3) {
            pl::setval(zs.current(), (nr - 1) * b.tile_cols + nc - 1, pl::getval(zs.current(), 0));
          } else if (e.via == 4) {
            pl::transpose(transposed, zs.current());
            pl::transpose(zs.current(), transposed);
          } else if (e.via == 5) {
            pl::iota(part_out, b.param);
            zs.current() = zs.current() + part_out;
          } else if (e.via == 6) {
            auto zt = zs.current();
            zt.view(0, 1, 0, b.tile_cols) = zt.view(nr - 1, 1, 0, b.tile_cols) + zt.view(nr - 1, 1, 0, 1);
          } else if (e.via == 7) {
            pl::vector_function([&](pl::VectorFunction& vf) {
              auto v = vf.load(zs.current());
              auto w = v + v;
              vf.store(part_out, w - v);
              vf.row_max(red, w);
              vf.store(part_out, w, v < w);  // a masked store over the first
            });
            zs.current() = part_out - red;
          } else if (e.via == 8) {
            centred = value;
            pl::row_sum(red, centred);
            part_out = centred - red;
            out = part_out;
          }
        } else {
          if (e.reduce == 0) pl::row_sum(red, value);
          if (e.reduce == 1) pl::row_max(red, value);
          if (e.reduce == 2) pl::row_min(red, value);
          if (e.reduce == 3) pl::col_sum(col_red, value);
          if (e.reduce == 4) pl::col_max(col_red, value);
          if (e.reduce == 5) pl::col_min(col_red, value);
          if (e.reduce == 6) pl::row_argmax(arg_rows, value);
          if (e.reduce == 7) pl::row_argmin(arg_rows, value);
          if (e.reduce == 8) pl::col_argmax(arg_cols, value);
          if (e.reduce == 9) pl::col_argmin(arg_cols, value);
          if (e.reduce < 3) zs.current() = value - red;
          else if (e.reduce < 6) zs.current() = value - col_red;
          else if (e.reduce < 8) zs.current() = value * 0 + pl::cast<T>(arg_rows);
          else zs.current() = value * 0 + pl::cast<T>(arg_cols);
        }
        pl::store(z.slice(static_cast<int64_t>(i) * rows + r0, nr, c0, nc), out,
                  {.relu_pre_mode = b.relu_store ? pl::ReluPreMode::NormalRelu : pl::ReluPreMode::NoRelu});
        zs.next();
      }
      xs.next();
      ys.next();
    }
    if (b.meet) pl::sync_all();
  });
}

// ------------------------------------------------------------------------------- running and comparing

/// `t` as the batch passes it: itself, or a host view of other storage holding the same values.
template <class T>
Tensor<T> as_view(const Batch& b, const Tensor<T>& t) {
  if (b.view == 0) return t;
  Tensor<T> storage = b.view == 1 ? Tensor<T>::zeros({b.cols, b.rows}) : Tensor<T>::zeros({2, b.rows, b.cols});
  Tensor<T> v = b.view == 1 ? storage.permute({1, 0}) : storage.select(0, 1);
  for (int64_t r = 0; r < b.rows; ++r) {
    for (int64_t c = 0; c < b.cols; ++c) v.at(r, c) = t.at(r, c);
  }
  return v;
}

template <class T>
Tensor<T> input(const Batch& b, uint64_t salt) {
  auto t = Tensor<T>::random({b.rows, b.cols}, b.data_seed ^ salt, -6.0, 6.0);
  // Special values at a few places: zeros of both signs, large values, and for floats inf and NaN.
  std::mt19937_64 rng(b.data_seed + salt);
  for (int k = 0; k < 1 + static_cast<int>(t.numel() / 16); ++k) {
    const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(t.numel()));
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      static constexpr float kSpecial[] = {0.0f, -0.0f, 1e4f, -1e4f, std::numeric_limits<float>::infinity(),
                                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 0.5f};
      t[i] = T(kSpecial[rng() % 8]);
    } else {
      static constexpr int64_t kSpecial[] = {0, -1, 1, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
      t[i] = static_cast<T>(kSpecial[rng() % 5]);
    }
  }
  return t;
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    // Bit for bit, the sign of a zero included; any NaN equals any NaN (payloads are not defined).
    return (std::isnan(fa) && std::isnan(fb)) || std::bit_cast<uint32_t>(fa) == std::bit_cast<uint32_t>(fb);
  }
}

/// Runs a batch on both engines; returns a description of the first difference of expression
/// `only` (all when -1), or "" when they agree.
template <class T>
std::string compare(const Batch& b, int only = -1) {
  const auto x = as_view(b, input<T>(b, 1)), y = as_view(b, input<T>(b, 2));
  const int64_t out_rows = static_cast<int64_t>(b.exprs.size()) * b.rows;
  auto z_jit = Tensor<T>::zeros({out_rows, b.cols}), z_ref = Tensor<T>::zeros({out_rows, b.cols});
  auto run = [&]<class P>() {
    const LaunchProfile pj = make_kernel<T, P>(b, false)[{.block_dim = b.block_dim}].run_sync(x, y, z_jit, b.param);
    const LaunchProfile pr = make_kernel<T, P>(b, true)[{.block_dim = b.block_dim}].run_sync(x, y, z_ref, b.param);
    return std::pair{pj, pr};
  };
  const auto [pj, pr] = b.dynamic ? run.template operator()<pl::Tensor<T, pl::DYNAMIC, pl::DYNAMIC>>() : run.template operator()<pl::Tensor<T>>();
  for (int64_t i = 0; i < z_jit.numel(); ++i) {
    const int e = static_cast<int>(i / (b.rows * b.cols));
    if (only >= 0 && e != only) continue;
    if (!same_value(z_jit[i], z_ref[i])) {
      const int64_t r = (i / b.cols) % b.rows, c = i % b.cols;
      return fmt::format("expression {} element ({}, {}): JIT {} vs interpreter {}", e, r, c, static_cast<double>(static_cast<float>(z_jit[i])),
                         static_cast<double>(static_cast<float>(z_ref[i])));
    }
  }
  if (pj.device_us != pr.device_us) return fmt::format("simulated time: JIT {} us vs interpreter {} us", pj.device_us, pr.device_us);
  return "";
}

std::string compare_batch(const Batch& b, int only = -1) {
  switch (b.dtype) {
    case DType::f32: return compare<float>(b, only);
    case DType::f16: return compare<half>(b, only);
    case DType::bf16: return compare<bfloat16>(b, only);
    case DType::i32: return compare<int32_t>(b, only);
    default: return compare<int8_t>(b, only);
  }
}

/// A failure as a string that cannot throw past the fuzzer: a UserError in one engine only is a mismatch too.
std::string safe_compare(const Batch& b, int only = -1) {
  try {
    return compare_batch(b, only);
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

// ------------------------------------------------------------------------------- shrinking and printing

/// The expressions reachable from `root`, renumbered (drops dead nodes).
Expr compact(const Expr& e, int root) {
  Expr out;
  out.reduce = e.reduce;
  std::function<int(int)> copy = [&](int i) {
    Node n = e.nodes[i];
    for (auto& k : n.kids) k = copy(k);
    out.nodes.push_back(n);
    return static_cast<int>(out.nodes.size()) - 1;
  };
  out.root = copy(root);
  return out;
}

Batch single(const Batch& b, int e) {
  Batch s = b;
  s.exprs = {b.exprs[e]};
  return s;
}

/// Greedy shrinking: smaller trees, shapes, tiles, depth, block_dim, no reduction — while it still fails.
Batch shrink(Batch b) {
  auto fails = [](const Batch& c) { return !safe_compare(c).empty(); };
  bool progress = true;
  for (int round = 0; progress && round < 64; ++round) {
    progress = false;
    std::vector<Batch> candidates;
    const Expr& e = b.exprs[0];
    for (size_t i = 0; i < e.nodes.size(); ++i) {
      for (int k : e.nodes[i].kids) {
        Expr smaller = e;
        smaller.nodes[i] = e.nodes[k];  // replace node i by its child k
        Batch c = b;
        c.exprs[0] = compact(smaller, smaller.root);
        candidates.push_back(c);
      }
    }
    if (e.reduce >= 0) {
      Batch c = b;
      c.exprs[0].reduce = -1;
      candidates.push_back(c);
    }
    auto variant = [&](auto change) {
      Batch c = b;
      change(c);
      candidates.push_back(c);
    };
    if (b.rows > 1) variant([](Batch& c) { c.rows = (c.rows + 1) / 2, c.dn_tiles = c.dn_tiles && c.rows > 1; });
    if (b.cols > 1) variant([](Batch& c) { c.cols = (c.cols + 1) / 2, c.dn_tiles = c.dn_tiles && c.cols > 1; });
    if (b.block_dim > 1) variant([](Batch& c) { c.block_dim = 1; });
    if (b.depth > 1) variant([](Batch& c) { c.depth = 1; });
    if (b.tile_rows > 1) variant([](Batch& c) { c.tile_rows = 1; });
    if (b.meet) variant([](Batch& c) { c.meet = false; });
    if (b.dynamic) variant([](Batch& c) { c.dynamic = false, c.view = c.view == 2 ? 2 : 0; });
    if (b.view) variant([](Batch& c) { c.view = 0, c.dn_tiles = false; });
    if (b.dn_tiles) variant([](Batch& c) { c.dn_tiles = false; });
    if (b.placed) variant([](Batch& c) { c.placed = false; });
    for (const auto& c : candidates) {
      if (fails(c)) {
        b = c;
        progress = true;
        break;
      }
    }
  }
  return b;
}

std::string type_name(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f16: return "pto::half";
    case DType::bf16: return "pto::bfloat16";
    case DType::i32: return "int32_t";
    default: return "int8_t";
  }
}

std::string cpp_expr(const Expr& e, int i, DType t) {
  const Node& d = e.nodes[i];
  auto k = [&](int j) { return cpp_expr(e, d.kids[j], t); };
  switch (d.op) {
    case Op::X: return "xs.current()";
    case Op::Y: return "ys.current()";
    case Op::Param: return "(xs.current() * 0 + n)";
    case Op::Const: return floating(t) ? fmt::format("(xs.current() * 0 + {})", d.value) : fmt::format("(xs.current() * 0 + {})", static_cast<int64_t>(d.value));
    case Op::Add: return "(" + k(0) + " + " + k(1) + ")";
    case Op::Sub: return "(" + k(0) + " - " + k(1) + ")";
    case Op::Mul: return "(" + k(0) + " * " + k(1) + ")";
    case Op::Div: return "(" + k(0) + " / " + k(1) + ")";
    case Op::Pow: return "pl::pow(" + k(0) + ", " + k(1) + ")";
    case Op::Max: return "pl::max(" + k(0) + ", " + k(1) + ")";
    case Op::Min: return "pl::min(" + k(0) + ", " + k(1) + ")";
    case Op::Neg: return "-" + k(0);
    case Op::Abs: return "pl::abs(" + k(0) + ")";
    case Op::Relu: return "pl::relu(" + k(0) + ")";
    case Op::Exp: return "pl::exp(" + k(0) + ")";
    case Op::Log: return "pl::log(" + k(0) + ")";
    case Op::Sqrt: return "pl::sqrt(" + k(0) + ")";
    case Op::Rsqrt: return "pl::rsqrt(" + k(0) + ")";
    case Op::Tanh: return "pl::tanh(" + k(0) + ")";
    case Op::Sigmoid: return "pl::sigmoid(" + k(0) + ")";
    case Op::Erf: return "pl::erf(" + k(0) + ")";
    case Op::Sin: return "pl::sin(" + k(0) + ")";
    case Op::Cos: return "pl::cos(" + k(0) + ")";
    case Op::CastVia: {
      if (d.round == pl::RoundMode::Default) return fmt::format("pl::cast<{}>(pl::cast<{}>({}))", type_name(t), type_name(d.via), k(0));
      const std::string m = std::string("pl::RoundMode::") + pto::ir::round_mode_name(d.round);
      return fmt::format("pl::cast<{}>(pl::cast<{}>({}, {}), {})", type_name(t), type_name(d.via), k(0), m, m);
    }
    case Op::And: return "(" + k(0) + " & " + k(1) + ")";
    case Op::Or: return "(" + k(0) + " | " + k(1) + ")";
    case Op::Xor: return "(" + k(0) + " ^ " + k(1) + ")";
    case Op::Shl: return "(" + k(0) + " << " + k(1) + ")";
    case Op::Shr: return "(" + k(0) + " >> " + k(1) + ")";
    case Op::Not: return "~" + k(0);
    case Op::Select: {
      static constexpr const char* kCmp[] = {"<", "<=", ">", ">=", "==", "!="};
      return fmt::format("pl::select({} {} {}, {}, {})", k(0), kCmp[d.cmp], k(1), k(2), k(3));
    }
  }
  return "?";
}

/// The options of group `which` in the repro: ", pl::Addrs{...}" for a placed batch, ", pl::DN" for
/// DN tiles, both as one pl::TileOptions, else "".
std::string placed_at(const Batch& b, int which) {
  const bool dn = b.dn_tiles && which < 2;
  const std::string at = fmt::format("{}", fmt::join(b.addrs(which, static_cast<int64_t>(dtype_size(b.dtype))), ", "));
  if (b.placed && dn) return fmt::format(", {{.layout = pl::DN, .addrs = {{{}}}}}", at);
  if (b.placed) return fmt::format(", pl::Addrs{{{}}}", at);
  return dn ? ", pl::DN" : "";
}

std::string cpp(const Batch& b) {
  const std::string T = type_name(b.dtype);
  const Expr& e = b.exprs[0];
  std::string body = e.part >= 0 ? fmt::format("    zs.current() = {};\n    part_src = xs.current();\n"
                                               "    pl::set_validshape(part_src, pl::max(1, nr - 1), pl::max(1, nc / 2));\n"
                                               "    pl::{}(part_out, {});\n    zs.current() = part_out;\n",
                                               cpp_expr(e, e.root, b.dtype), kPartOps[e.part],
                                               e.part_first ? "part_src, zs.current()" : "zs.current(), part_src")
                     : e.reduce < 0 ? fmt::format("    zs.current() = {};\n{}", cpp_expr(e, e.root, b.dtype),
                                                  std::array<std::string, 9>{
                                                      "", "    pl::gathermask(part_out, zs.current(), {.pattern_mode = 7});\n    zs.current() = part_out;\n",
                                                      "    pl::fillpad(pad_out, zs.current());\n    zs.current() = pad_out;\n",
                                                      fmt::format("    pl::setval(zs.current(), (nr - 1) * {} + nc - 1, pl::getval(zs.current(), 0));\n",
                                                                  b.tile_cols),
                                                      "    pl::transpose(transposed, zs.current());\n    pl::transpose(zs.current(), transposed);\n",
                                                      fmt::format("    pl::iota(part_out, {});\n    zs.current() = zs.current() + part_out;\n", b.param),
                                                      fmt::format("    zs.current().view(0, 1, 0, {0}) = zs.current().view(nr - 1, 1, 0, {0}) + "
                                                                  "zs.current().view(nr - 1, 1, 0, 1);\n", b.tile_cols),
                                                      "    pl::vector_function([&](pl::VectorFunction& vf) {\n      auto v = vf.load(zs.current());\n"
                                                      "      auto w = v + v;\n      vf.store(part_out, w - v);\n      vf.row_max(red, w);\n"
                                                      "      vf.store(part_out, w, v < w);\n    });\n    zs.current() = part_out - red;\n",
                                                      fmt::format("    centred = {};\n    pl::row_sum(red, centred);\n    part_out = centred - red;\n"
                                                                  "    zs.current() = part_out;\n", cpp_expr(e, e.root, b.dtype))}
                                                      [static_cast<size_t>(e.via)])
                     : e.reduce >= 6 ? fmt::format("    pl::{0}({1}, {2});\n    zs.current() = {3} * 0 + pl::cast<{4}>({1});\n",
                                                std::array{"row_argmax", "row_argmin", "col_argmax", "col_argmin"}[e.reduce - 6],
                                                e.reduce < 8 ? "arg_rows" : "arg_cols", cpp_expr(e, e.root, b.dtype),
                                                cpp_expr(e, e.root, b.dtype), type_name(b.dtype))
                                  : fmt::format("    pl::{0}({1}, {2});\n    zs.current() = {3} - {1};\n",
                                                std::array{"row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min"}[e.reduce],
                                                e.reduce < 3 ? "red" : "col_red",
                                                cpp_expr(e, e.root, b.dtype), cpp_expr(e, e.root, b.dtype));
  return fmt::format(
      "// x, y: {T} [{R} x {C}] (data seed {seed}){hostview}, n = {n}, block_dim = {bd}\n"
      "auto k = pl::jit({{.name = \"repro\", .auto_mutex = true}}, [](pl::Tensor<{P}> x, pl::Tensor<{P}> y, pl::Tensor<{P}> z, pl::Int n) {{\n"
      "  auto xs = pl::make_tile_group<{T}>(pl::Vec, {{{tr}, {tc}}}, /* {d} slots */ {slots}{at0});\n"
      "  auto ys = pl::make_tile_group<{T}>(pl::Vec, {{{tr}, {tc}}}, {slots}{at1});\n"
      "  auto zs = pl::make_tile_group<{T}>(pl::Vec, {{{tr}, {tc}}}, {slots}{at2});\n"
      "  auto red = pl::make_tile<{T}>(pl::Vec, {{{tr}, 1}}), col_red = pl::make_tile<{T}>(pl::Vec, {{1, {tc}}});\n"
      "  auto arg_rows = pl::make_tile<int32_t>(pl::Vec, {{{tr}, 1}}), arg_cols = pl::make_tile<int32_t>(pl::Vec, {{1, {tc}}});\n"
      "  auto part_src = pl::make_tile<{T}>(pl::Vec, {{{tr}, {tc}}}), part_out = pl::make_tile<{T}>(pl::Vec, {{{tr}, {tc}}});\n"
      "  auto pad_out = pl::make_tile<{T}>(pl::Vec, {{{tr}, {tc}}}, pl::TilePad::Max);\n"
      "  auto transposed = pl::make_tile<{T}>(pl::Vec, {{{tc}, {tr}}});\n"
      "  auto centred = pl::make_tile<{T}>(pl::Vec, {{{tr}, {tc}}});\n"
      "  const pl::Int col_tiles = {ct};\n"
      "  for (auto t : pl::range(pl::get_block_idx(), {tiles}, pl::get_block_num())) {{\n"
      "    auto r0 = t / col_tiles * {tr}, c0 = t % col_tiles * {tc};\n"
      "    auto nr = pl::min({tr}, {rows} - r0), nc = pl::min({tc}, {cols} - c0);\n"
      "    pl::load(xs.current(), x.slice(r0, nr, c0, nc));\n"
      "    pl::load(ys.current(), y.slice(r0, nr, c0, nc));\n"
      "{body}"
      "    pl::store(z.slice(r0, nr, c0, nc), zs.current(){relu});\n"
      "    xs.next(); ys.next(); zs.next();\n"
      "  }}\n"
      "{meet}"
      "}});\n",
      fmt::arg("T", T), fmt::arg("R", b.rows), fmt::arg("C", b.cols), fmt::arg("seed", b.data_seed), fmt::arg("n", b.param),
      fmt::arg("bd", b.block_dim), fmt::arg("tr", b.tile_rows), fmt::arg("tc", b.tile_cols), fmt::arg("d", b.depth),
      fmt::arg("slots", b.depth == 1 ? std::string("{}") : b.depth == 2 ? std::string("{0, 1}") : std::string("{0, 1, 2}")),
      fmt::arg("at0", placed_at(b, 0)), fmt::arg("at1", placed_at(b, 1)), fmt::arg("at2", placed_at(b, 2)),
      fmt::arg("hostview", std::array<const char*, 3>{"", " as host views: [C x R].permute({1, 0})", " as host views: [2 x R x C].select(0, 1)"}[static_cast<size_t>(b.view)]),
      fmt::arg("P", b.dynamic ? T + ", pl::DYNAMIC, pl::DYNAMIC" : T),
      fmt::arg("rows", b.dynamic ? std::string("x.extent(0)") : std::to_string(b.rows)),
      fmt::arg("cols", b.dynamic ? std::string("x.extent(1)") : std::to_string(b.cols)),
      fmt::arg("ct", b.dynamic ? fmt::format("pl::ceil_div(x.extent(1), {})", b.tile_cols) : std::to_string((b.cols + b.tile_cols - 1) / b.tile_cols)),
      fmt::arg("tiles", b.dynamic ? fmt::format("pl::ceil_div(x.extent(0), {}) * col_tiles", b.tile_rows)
                                  : std::to_string((b.rows + b.tile_rows - 1) / b.tile_rows * ((b.cols + b.tile_cols - 1) / b.tile_cols))),
      fmt::arg("body", body),
      fmt::arg("relu", b.relu_store ? ", {.relu_pre_mode = pl::ReluPreMode::NormalRelu}" : ""),
      fmt::arg("meet", b.meet ? "  pl::sync_all();\n" : ""));
}

}  // namespace

namespace {

/// One round of the run: a batch of vector expressions, or one cube or mix kernel.
struct Round {
  enum Kind { vector, cube, mix } kind = vector;
  Batch batch;    // vector
  int cases = 1;  // vector: the batch's expressions
  uint64_t seed = 0;  // cube, mix
  std::string outcome, description;  // filled when it ran: "" (agreed) or the first difference
};

/// Runs a round (on any thread: every round builds its own kernels and tensors).
void evaluate(Round& r) {
  switch (r.kind) {
    case Round::vector: r.outcome = safe_compare(r.batch); break;
    case Round::cube: r.outcome = detail::run_cube_case(r.seed, &r.description); break;
    case Round::mix: r.outcome = detail::run_mix_case(r.seed, &r.description); break;
  }
}

}  // namespace

Result run(const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  Result result;
  Generator gen(o.seed);
  const int batch = std::max(1, o.batch);
  const int workers = o.jobs == 1 ? 1 : std::max(1, o.jobs > 1 ? o.jobs : tbb::this_task_arena::max_concurrency());
  uint64_t round = 0;
  int planned = 0;
  while (result.cases < o.cases) {
    // Plan a chunk of rounds in order (the generator's sequence does not depend on `jobs`):
    // every fourth round is one random cube kernel (matmul with tails, K steps, transposed B),
    // every other one of those a mix kernel (samples 04 and 06 on a2 and a5).
    std::vector<Round> chunk;
    while (static_cast<int>(chunk.size()) < 16 * workers && planned < o.cases) {
      Round r;
      if (++round % 4 == 0) {
        r.kind = round % 8 == 0 ? Round::mix : Round::cube;
        r.seed = o.seed * 1000003 + round;
      } else {
        r.cases = std::min(batch, o.cases - planned);
        r.batch = gen.batch(r.cases);
      }
      planned += r.cases;
      chunk.push_back(std::move(r));
    }
    // Run them side by side, then take the outcomes in order.
    if (workers == 1) {
      for (auto& r : chunk) evaluate(r);
    } else {
      tbb::task_arena arena(workers);
      arena.execute([&] { tbb::parallel_for(size_t{0}, chunk.size(), [&](size_t i) { evaluate(chunk[i]); }); });
    }
    for (const Round& r : chunk) {
      result.cases += r.cases;
      if (r.kind != Round::vector) {
        if (!r.outcome.empty()) {
          ++result.mismatches;
          result.failures.push_back({r.outcome, "// " + r.description});
          if (o.log) o.log(fmt::format("MISMATCH: {}\n// {}", r.outcome, r.description));
        }
      } else if (!r.outcome.empty()) {
        // Find the failing expressions of the batch, then shrink each.
        for (int e = 0; e < r.cases; ++e) {
          Batch b = single(r.batch, e);
          std::string what = safe_compare(b);
          if (what.empty()) continue;
          ++result.mismatches;
          if (o.shrink) {
            b = shrink(b);
            what = safe_compare(b);
          }
          result.failures.push_back({what, cpp(b)});
          if (o.log) o.log(fmt::format("MISMATCH: {}\n{}", what, cpp(b)));
        }
      }
      if (o.progress) o.progress(result.cases, result.mismatches);
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace pto::fuzz

#pragma once
// `pl::jit(options, lambda)` and `pto::Kernel<Signature>`.
//
//   inline const auto vadd = pl::jit({.name = "vadd"},
//       [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) { ... });
//   vadd[{.block_dim = 8}](x, y, z);   // async on the default stream
//   pto::synchronize();
//
// A Kernel is typed by its lambda's parameters: host arguments are checked at compile time
// (a `pl::Tensor<float>` parameter takes a `pto::Tensor<float>`, a `pl::Int` an integer).
// The first launch of each specialisation (static shapes, dtypes, options, chip) traces the
// lambda and JIT-compiles it; later launches hit the compile cache. Errors found on the host
// (bad block_dim, trace or compile errors) are thrown by the launch call; errors found while
// the kernel runs are thrown by the next synchronisation of its stream.
#include <bit>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>

#include "pto/lang/Lang.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/JitOptions.hpp"
#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/Stream.hpp"
#include "pto/runtime/Tensor.hpp"

namespace pto {

struct LaunchConfig {
  int block_dim = 1;
  Stream* stream = nullptr;  // nullptr: the default stream
  TilingKey tiling_key;      // a BOOST_HANA_DEFINE_STRUCT key (see pto/lang/TilingKey.hpp), or none
  std::source_location loc = std::source_location::current();  // the launch site
};

namespace detail {

template <class P> inline constexpr bool unsupported_parameter = false;
template <class P> struct host_arg {
  static_assert(unsupported_parameter<P>,
                "pto: a kernel parameter is pl::Tensor<T> (GM data), pl::Int (a runtime integer: the host passes an "
                "int64_t or int32_t) or pl::Float (a runtime float: the host passes a float, pto::half or pto::bfloat16)");
  using type = void;
};
template <Element T, int64_t... Dims> struct host_arg<lang::Tensor<T, Dims...>> { using type = pto::Tensor<T>; };
template <> struct host_arg<lang::Int> { using type = int64_t; };
template <> struct host_arg<lang::Float> { using type = float; };
template <class P> using host_arg_t = typename host_arg<std::remove_cvref_t<P>>::type;

class KernelBase {
 public:
  KernelBase(JitOptions options, std::source_location defined_at);

  const std::string& name() const;
  const ChipProfile& chip() const;
  const JitOptions& options() const;

  /// The specialisation for `args`, compiled on first use (trace + lower + JIT).
  std::shared_ptr<const CompiledKernel> specialize(const LaunchArgs& args, const std::function<void()>& trace,
                                                   const std::source_location& call_site) const;
  /// Validates `config`, specialises, queues the launch on the config's stream.
  void launch(const LaunchConfig& config, LaunchArgs args, const std::function<void()>& trace) const;
  /// Specialises and runs synchronously on the calling thread (no stream); returns the profile.
  LaunchProfile run_now(const LaunchConfig& config, const LaunchArgs& args, const std::function<void()>& trace) const;

  static std::string describe(const LaunchArgs& args);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// The dimensions a tensor parameter `P` declares (pl::Tensor<T, Dims...>); empty for pl::Tensor<T>.
template <class P> struct declared_dims { static constexpr std::array<int64_t, 0> value{}; };
template <Element T, int64_t... Dims> struct declared_dims<lang::Tensor<T, Dims...>> {
  static constexpr std::array<int64_t, sizeof...(Dims)> value{Dims...};
};

/// Appends one host argument for parameter `P`; a tensor without storage is recorded as the
/// first bad argument.
template <class P, Element T>
void add_arg(LaunchArgs& a, const pto::Tensor<T>& t, size_t position, int& bad) {
  if (!t) {
    if (bad < 0) bad = static_cast<int>(position);
    return;
  }
  TensorArg arg{.position = static_cast<int>(position), .dtype = dtype_of<T>, .rank = t.rank(), .data = const_cast<T*>(t.data()),
                .owner = t.owner(), .storage = t.storage(), .storage_numel = t.storage_numel()};
  const bool contiguous = t.is_contiguous();
  for (int d = 0; d < t.rank(); ++d) {
    arg.shape[d] = t.dim(d);
    arg.strides[d] = contiguous ? 0 : t.stride(d);
  }
  constexpr auto dims = declared_dims<P>::value;
  arg.declared_rank = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    arg.declared[d] = dims[d];
    if (dims[d] == lang::DYNAMIC) arg.dynamic |= static_cast<uint8_t>(1u << d);
  }
  a.tensors.push_back(std::move(arg));
}
template <class P>
void add_arg(LaunchArgs& a, int64_t v, size_t, int&) { a.scalars.push_back(v); }
template <class P>
void add_arg(LaunchArgs& a, float v, size_t, int&) { a.scalars.push_back(std::bit_cast<uint32_t>(v)); }  // the float's bits

/// Checks each tensor argument against its parameter's declared dimensions (rank, static
/// extents), then appends the extents of dynamic dimensions to the scalars, in the order
/// TraceContext::bind_tensor_extents numbers them. A mismatch is a UserError at `loc`.
void bind_declared_dims(LaunchArgs& a, const std::string& kernel, const SourceLoc& loc);

}  // namespace detail

template <class Sig> class Kernel;

template <class... Ps>
class Kernel<void(Ps...)> : public detail::KernelBase {
 public:
  Kernel(JitOptions options, std::function<void(Ps...)> body, std::source_location defined_at)
      : KernelBase(std::move(options), defined_at), body_(std::move(body)) {}

  class Launcher {
   public:
    Launcher(const Kernel* k, LaunchConfig c) : k_(k), config_(std::move(c)) {}
    /// Queues one launch with these arguments.
    void operator()(const detail::host_arg_t<Ps>&... args) const {
      k_->launch(config_, k_->pack(config_, args...), [this] { k_->trace_body(); });
    }
    /// Specialises for these arguments without launching (the cold path, timed on its own).
    std::shared_ptr<const CompiledKernel> compile(const detail::host_arg_t<Ps>&... args) const {
      return k_->specialize(k_->pack(config_, args...), [this] { k_->trace_body(); }, config_.loc);
    }
    /// Runs on the calling thread and returns its profile when done (throws on failure).
    LaunchProfile run_sync(const detail::host_arg_t<Ps>&... args) const {
      return k_->run_now(config_, k_->pack(config_, args...), [this] { k_->trace_body(); });
    }

   private:
    const Kernel* k_;
    LaunchConfig config_;
  };

  Launcher operator[](LaunchConfig config) const { return Launcher(this, std::move(config)); }

  /// The same kernel body under other options (another chip, the interpreter, timing off, ...):
  /// a separate kernel with its own specialisations.
  Kernel with_options(JitOptions options, std::source_location loc = std::source_location::current()) const {
    return Kernel(std::move(options), body_, loc);
  }

 private:
  detail::LaunchArgs pack(const LaunchConfig& config, const detail::host_arg_t<Ps>&... args) const {
    detail::LaunchArgs a;
    a.tensors.reserve(sizeof...(Ps));
    size_t position = 0;
    int bad = -1;
    (detail::add_arg<std::remove_cvref_t<Ps>>(a, args, position++, bad), ...);
    PTO_USER_CHECK(bad < 0, (ErrorSite{.kernel = name(), .loc = SourceLoc::from(config.loc)}))
        << "argument " << bad << " is an empty (default-constructed) tensor";
    detail::bind_declared_dims(a, name(), SourceLoc::from(config.loc));
    PTO_USER_CHECK(config.tiling_key.invalid_reason().empty(), (ErrorSite{.kernel = name(), .loc = SourceLoc::from(config.loc)}))
        << "invalid tiling key: "
        << (config.tiling_key.invalid_reason().ends_with("()") ? "its " + config.tiling_key.invalid_reason() + " check failed"
                                                                : "field '" + config.tiling_key.invalid_reason() + "' is outside its declared values");
    a.key = config.tiling_key;
    return a;
  }

  template <class P>
  static std::remove_cvref_t<P> make_param(lang::TraceContext& ctx, int& tensor, int& scalar, int& position) {
    using Param = std::remove_cvref_t<P>;
    const int pos = position++;
    if constexpr (std::is_same_v<Param, lang::Int> || std::is_same_v<Param, lang::Float>) {
      constexpr DType dtype = std::is_same_v<Param, lang::Int> ? DType::i64 : DType::f32;
      ir::Expr var = ctx.new_var("arg" + std::to_string(pos), ir::VarKind::Param, scalar++, dtype);
      ctx.kernel().scalars.push_back({"arg" + std::to_string(pos), var});
      return Param(var);
    } else {
      const auto& t = ctx.kernel().tensors.at(tensor);
      return Param(tensor++, t);
    }
  }

  static constexpr int kUserScalars = (0 + ... + (std::is_same_v<std::remove_cvref_t<Ps>, lang::Int> ||
                                                  std::is_same_v<std::remove_cvref_t<Ps>, lang::Float>));

  void trace_body() const {
    auto& ctx = *lang::TraceContext::current();
    ctx.bind_tensor_extents(kUserScalars);
    int tensor = 0, scalar = 0, position = 0;
    std::tuple<std::remove_cvref_t<Ps>...> params{make_param<Ps>(ctx, tensor, scalar, position)...};
    std::apply(body_, params);
  }

  std::function<void(Ps...)> body_;
};

namespace detail {
template <class F> struct signature_of : signature_of<decltype(&F::operator())> {};
template <class C, class R, class... A> struct signature_of<R (C::*)(A...) const> {
  static_assert(std::is_void_v<R>, "pto: a kernel lambda returns void; it writes its results to tensors");
  using type = void(std::remove_cvref_t<A>...);
};
template <class C, class R, class... A> struct signature_of<R (C::*)(A...)> : signature_of<R (C::*)(A...) const> {};
}  // namespace detail

}  // namespace pto

namespace pto::lang {
using pto::JitOptions;

/// Makes a kernel from a lambda whose parameters are `pl::Tensor<T>` and `pl::Int`.
template <class F>
auto jit(JitOptions options, F body, std::source_location loc = std::source_location::current()) {
  using Sig = typename pto::detail::signature_of<std::remove_cvref_t<F>>::type;
  return pto::Kernel<Sig>(std::move(options), std::move(body), loc);
}
}  // namespace pto::lang

#pragma once
// A kernel's tunables declared as a Boost.Hana struct, the way a TilingKey is:
//
//   struct SoftmaxTunables {
//     BOOST_HANA_DEFINE_STRUCT(SoftmaxTunables,
//       (pto::KeyValues<int, 4, 8, 16, 24, 48>, block_dim),
//       (pto::KeyField<int, 1, 4>, buffers),     // 1, 2, 3, 4
//       (bool, unroll));                          // 0, 1
//   };
//   auto r = pto::tune<SoftmaxTunables>([&](const SoftmaxTunables& t) { ... }, {.budget = 32});
//
// KeyValues<T, V...> takes its listed values, KeyField<T, Min, Max> every value from Min to Max,
// bool 0 and 1. The axes are the fields, in declaration order.
#include <boost/hana/accessors.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/string.hpp>

#include "pto/lang/TilingKey.hpp"
#include "pto/runtime/Tune.hpp"

namespace pto {

namespace detail {
template <class F> struct tune_axis_values;
template <> struct tune_axis_values<bool> {
  static std::vector<int64_t> get() { return {0, 1}; }
};
template <class T, int64_t Min, int64_t Max> struct tune_axis_values<KeyField<T, Min, Max>> {
  static std::vector<int64_t> get() {
    std::vector<int64_t> v;
    for (int64_t x = Min; x <= Max; ++x) v.push_back(x);
    return v;
  }
};
template <class T, int64_t... V> struct tune_axis_values<KeyValues<T, V...>> {
  static std::vector<int64_t> get() { return {V...}; }
};
}  // namespace detail

/// The space of a tunables struct: one axis per field.
template <class S> requires boost::hana::Struct<S>::value
TuneSpace tune_space_of() {
  TuneSpace space;
  boost::hana::for_each(boost::hana::accessors<S>(), [&](auto pair) {
    using Field = std::remove_cvref_t<decltype(boost::hana::second(pair)(std::declval<S&>()))>;
    space.axes.push_back({boost::hana::to<char const*>(boost::hana::first(pair)), detail::tune_axis_values<Field>::get()});
  });
  return space;
}

/// The struct holding a configuration's values (fields the configuration lacks keep their defaults).
template <class S> requires boost::hana::Struct<S>::value
S tune_config_as(const TuneConfig& config) {
  S s{};
  boost::hana::for_each(boost::hana::accessors<S>(), [&](auto pair) {
    auto& field = boost::hana::second(pair)(s);
    using Field = std::remove_cvref_t<decltype(field)>;
    const auto it = config.find(boost::hana::to<char const*>(boost::hana::first(pair)));
    if (it == config.end()) return;
    if constexpr (std::is_same_v<Field, bool>) {
      field = it->second != 0;
    } else {
      field = static_cast<decltype(field.value)>(it->second);
    }
  });
  return s;
}

/// `pto::tune` over a tunables struct.
template <class S> requires boost::hana::Struct<S>::value
TuneResult tune(const std::function<TuneOutcome(const S&)>& evaluate, const TuneOptions& options = {}) {
  return tune(tune_space_of<S>(), [&](const TuneConfig& c) { return evaluate(tune_config_as<S>(c)); }, options);
}

}  // namespace pto

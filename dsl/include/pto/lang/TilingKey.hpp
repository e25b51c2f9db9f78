#pragma once
// TilingKey: compile-time specialisation switches chosen by host code per launch.
//
//   struct AddKey {
//     BOOST_HANA_DEFINE_STRUCT(AddKey,
//       (bool, aligned),                        // 1 bit
//       (pto::KeyField<int, 0, 3>, unroll));    // values 0..3: 2 bits
//     bool valid() const { return !aligned || unroll > 0; }   // optional (PyPTO Pro: is_valid())
//   };
//   kernel[{.block_dim = 8, .tiling_key = AddKey{true, 2}}](x, y, z);
//   ... inside the kernel:  const auto key = pl::tiling_key<AddKey>();  if (key.aligned) { ... }
//
// Every field is a trace-time constant, so a plain C++ `if` on it builds a specialised kernel with
// no branch in the generated code. Each distinct key value is its own specialisation. Fields are
// bool, KeyField<T, Min, Max> (integers or enums with a declared value range) and
// KeyValues<T, V...> (one of a list of values, PyPTO Pro's `values=[...]`); the encoded key
// must fit in 64 bits (a static_assert otherwise). A key outside its declared ranges, or whose
// `valid()` returns false, is a UserError at launch.
#include <any>
#include <cstdint>
#include <string>
#include <typeinfo>

#include <boost/hana/accessors.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/keys.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include "pto/lang/Trace.hpp"

namespace pto {

/// A key field with values in [Min, Max]; converts to and from T.
template <class T, int64_t Min, int64_t Max>
struct KeyField {
  static_assert(Min <= Max, "pto: KeyField needs Min <= Max");
  static constexpr int bits = [] {
    int b = 0;
    while (b < 63 && (uint64_t{1} << b) <= static_cast<uint64_t>(Max - Min)) ++b;
    return b;
  }();
  T value{static_cast<T>(Min)};
  KeyField() = default;
  KeyField(T v) : value(v) {}  // NOLINT: assigned like a plain T
  operator T() const { return value; }  // NOLINT
  bool in_range() const { return static_cast<int64_t>(value) >= Min && static_cast<int64_t>(value) <= Max; }
  uint64_t code() const { return static_cast<uint64_t>(static_cast<int64_t>(value) - Min); }
};

/// A key field that takes one of a list of values (PyPTO Pro's `TilingKeyField(bits, values=[...])`),
/// e.g. `KeyValues<int, 64, 128, 256>` for a tile width: encoded as the value's index in the list.
template <class T, int64_t... Values>
struct KeyValues {
  static_assert(sizeof...(Values) > 0, "pto: KeyValues needs at least one value");
  static constexpr int64_t values[] = {Values...};
  static constexpr int bits = [] {
    int b = 0;
    while ((uint64_t{1} << b) < sizeof...(Values)) ++b;
    return b;
  }();
  T value{static_cast<T>(values[0])};
  KeyValues() = default;
  KeyValues(T v) : value(v) {}  // NOLINT: assigned like a plain T
  operator T() const { return value; }  // NOLINT
  int index() const {
    for (size_t i = 0; i < sizeof...(Values); ++i) {
      if (values[i] == static_cast<int64_t>(value)) return static_cast<int>(i);
    }
    return -1;
  }
  bool in_range() const { return index() >= 0; }
  uint64_t code() const { return static_cast<uint64_t>(index()); }
};

namespace detail {
template <class F> struct key_field_traits;
template <> struct key_field_traits<bool> {
  static constexpr int bits = 1;
  static bool in_range(bool) { return true; }
  static uint64_t code(bool b) { return b ? 1 : 0; }
};
template <class T, int64_t Min, int64_t Max> struct key_field_traits<KeyField<T, Min, Max>> {
  static constexpr int bits = KeyField<T, Min, Max>::bits;
  static bool in_range(const KeyField<T, Min, Max>& f) { return f.in_range(); }
  static uint64_t code(const KeyField<T, Min, Max>& f) { return f.code(); }
};
template <class T, int64_t... V> struct key_field_traits<KeyValues<T, V...>> {
  static constexpr int bits = KeyValues<T, V...>::bits;
  static bool in_range(const KeyValues<T, V...>& f) { return f.in_range(); }
  static uint64_t code(const KeyValues<T, V...>& f) { return f.code(); }
};

template <class K>
constexpr int key_bits() {
  return boost::hana::fold_left(boost::hana::accessors<K>(), 0, [](int total, auto pair) {
    using Field = std::remove_cvref_t<decltype(boost::hana::second(pair)(std::declval<const K&>()))>;
    return total + key_field_traits<Field>::bits;
  });
}
}  // namespace detail

/// A type-erased tiling key: its encoding (part of the compile-cache key) and the value itself.
class TilingKey {
 public:
  TilingKey() = default;

  template <class K> requires boost::hana::Struct<K>::value
  TilingKey(const K& key) : value_(key), type_(&typeid(K)) {  // NOLINT: `.tiling_key = key`
    static_assert(detail::key_bits<K>() <= 64, "pto: a TilingKey's fields must fit in 64 bits");
    int shift = 0;
    bool ok = true;
    boost::hana::for_each(boost::hana::accessors<K>(), [&](auto pair) {
      const auto& field = boost::hana::second(pair)(key);
      using Field = std::remove_cvref_t<decltype(field)>;
      if (!detail::key_field_traits<Field>::in_range(field)) {
        ok = false;
        if (bad_field_.empty()) bad_field_ = boost::hana::to<char const*>(boost::hana::first(pair));
      }
      code_ |= detail::key_field_traits<Field>::code(field) << shift;
      shift += detail::key_field_traits<Field>::bits;
    });
    if constexpr (requires { key.valid(); }) {
      if (ok && !key.valid()) bad_field_ = "valid()";
    }
    if constexpr (requires { key.is_valid(); }) {  // PyPTO Pro's name
      if (ok && bad_field_.empty() && !key.is_valid()) bad_field_ = "is_valid()";
    }
  }

  bool empty() const { return type_ == nullptr; }
  uint64_t code() const { return code_; }
  const std::type_info* type() const { return type_; }
  size_t type_hash() const { return type_ ? type_->hash_code() : 0; }
  /// Empty when the key is valid; else the offending field name, or "valid()".
  const std::string& invalid_reason() const { return bad_field_; }
  template <class K> const K* get() const { return std::any_cast<K>(&value_); }

 private:
  std::any value_;
  const std::type_info* type_ = nullptr;
  uint64_t code_ = 0;
  std::string bad_field_;
};

namespace lang {
namespace detail {
const TilingKey& current_tiling_key(const std::source_location& loc);
}

/// The launch's tiling key, as a trace-time constant struct.
template <class K>
K tiling_key(std::source_location loc = std::source_location::current()) {
  const TilingKey& key = detail::current_tiling_key(loc);
  const K* k = key.get<K>();
  PTO_USER_CHECK(k != nullptr, TraceContext::get(loc).site(SourceLoc::from(loc)))
      << (key.empty() ? "the kernel asks for a tiling key but the launch passed none (.tiling_key = ...)"
                      : "the kernel asks for a tiling key of another type than the launch passed");
  return *k;
}
}  // namespace lang

}  // namespace pto

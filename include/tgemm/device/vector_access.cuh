/// \file device/vector_access.cuh
/// \brief Moving N consecutive elements as one memory access: the single helper every layer uses for it.
///
/// N * sizeof(T) must be 4, 8 or 16 bytes, and the address aligned to that size. float goes through float2 and
/// float4 exactly as hand-written code would; other types move their bits through the same-sized vector type.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

namespace tgemm::device::detail {

/// The builtin type the GPU moves `Bytes` bytes with in one access.
template <int Bytes>
struct access_type;
/// 2 bytes (one 16-bit element).
template <>
struct access_type<2> {
  using type = unsigned short;
};
/// 4 bytes.
template <>
struct access_type<4> {
  using type = float;
};
/// 8 bytes.
template <>
struct access_type<8> {
  using type = float2;
};
/// 16 bytes.
template <>
struct access_type<16> {
  using type = float4;
};

/// Splits an access-sized value into its N elements.
template <int N, class T, class V>
__device__ __forceinline__ void unpack(T* out, const V& v) {
  static_assert(sizeof(V) == N * sizeof(T), "an access moves exactly N elements");
  if constexpr (std::is_same<T, float>::value && N == 4) {
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if constexpr (std::is_same<T, float>::value && N == 2) {
    out[0] = v.x, out[1] = v.y;
  } else if constexpr (std::is_same<T, float>::value && N == 1) {
    out[0] = v;
  } else {
    const T* parts = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = parts[i];
  }
}

/// Builds an access-sized value from N elements.
template <int N, class T>
__device__ __forceinline__ typename access_type<N * int(sizeof(T))>::type pack(const T* in) {
  using V = typename access_type<N * int(sizeof(T))>::type;
  if constexpr (std::is_same<T, float>::value && N == 4) {
    return make_float4(in[0], in[1], in[2], in[3]);
  } else if constexpr (std::is_same<T, float>::value && N == 2) {
    return make_float2(in[0], in[1]);
  } else if constexpr (std::is_same<T, float>::value && N == 1) {
    return in[0];
  } else {
    V v;
    T* parts = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int i = 0; i < N; ++i) parts[i] = in[i];
    return v;
  }
}

/// Reads N consecutive elements (global or shared memory) as one access.
template <int N, class T>
__device__ __forceinline__ void load_vector(T* out, const T* from) {
  using V = typename access_type<N * int(sizeof(T))>::type;
  const V v = *reinterpret_cast<const V*>(from);  // one access into a value, then split in registers
  unpack<N>(out, v);
}

/// Reads N consecutive elements of global memory that no thread writes during the kernel, as one access through
/// the read-only data path (__ldg).
template <int N, class T>
__device__ __forceinline__ void load_vector_readonly(T* out, const T* __restrict__ from) {
  using V = typename access_type<N * int(sizeof(T))>::type;
  const V v = __ldg(reinterpret_cast<const V*>(from));
  unpack<N>(out, v);
}

/// Writes N consecutive elements (global or shared memory) as one access.
template <int N, class T>
__device__ __forceinline__ void store_vector(T* to, const T* in) {
  using V = typename access_type<N * int(sizeof(T))>::type;
  const V v = pack<N>(in);
  *reinterpret_cast<V*>(to) = v;
}

}  // namespace tgemm::device::detail

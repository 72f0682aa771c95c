// Stub of Thrust's reductions with the real names: thrust::reduce and
// thrust::count_if, with and without an execution policy.
#pragma once
#include <thrust/execution_policy.h>

namespace thrust {
inline namespace THRUST_STUB_NS {
template <typename Iterator, typename T>
T reduce(Iterator First, Iterator Last, T Init);
template <typename Policy, typename Iterator, typename T>
T reduce(const Policy &Exec, Iterator First, Iterator Last, T Init);
template <typename Iterator, typename Predicate>
long count_if(Iterator First, Iterator Last, Predicate Pred);
} // namespace THRUST_STUB_NS
} // namespace thrust

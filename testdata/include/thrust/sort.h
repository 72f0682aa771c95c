// Stub of Thrust's sorts with the real names: thrust::sort and
// thrust::sort_by_key.
#pragma once
#include <thrust/execution_policy.h>

namespace thrust {
inline namespace THRUST_STUB_NS {
template <typename Iterator> void sort(Iterator First, Iterator Last);
template <typename KeyIterator, typename ValueIterator>
void sort_by_key(KeyIterator KeysFirst, KeyIterator KeysLast,
                 ValueIterator Values);
} // namespace THRUST_STUB_NS
} // namespace thrust

// Stub of Thrust's scans with the real names: thrust::inclusive_scan and
// thrust::exclusive_scan, with and without an execution policy.
#pragma once
#include <thrust/execution_policy.h>

namespace thrust {
inline namespace THRUST_STUB_NS {
template <typename InputIterator, typename OutputIterator>
OutputIterator inclusive_scan(InputIterator First, InputIterator Last,
                              OutputIterator Result);
template <typename Policy, typename InputIterator, typename OutputIterator>
OutputIterator inclusive_scan(const Policy &Exec, InputIterator First,
                              InputIterator Last, OutputIterator Result);
template <typename InputIterator, typename OutputIterator>
OutputIterator exclusive_scan(InputIterator First, InputIterator Last,
                              OutputIterator Result);
} // namespace THRUST_STUB_NS
} // namespace thrust

// Stub of Thrust's copy and transform with the real names, with and
// without an execution policy.
#pragma once
#include <thrust/execution_policy.h>

namespace thrust {
inline namespace THRUST_STUB_NS {
template <typename InputIterator, typename OutputIterator>
OutputIterator copy(InputIterator First, InputIterator Last,
                    OutputIterator Result);
template <typename Policy, typename InputIterator, typename OutputIterator>
OutputIterator copy(const Policy &Exec, InputIterator First,
                    InputIterator Last, OutputIterator Result);
} // namespace THRUST_STUB_NS
} // namespace thrust

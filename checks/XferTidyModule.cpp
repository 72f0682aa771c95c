//===--- XferTidyModule.cpp - registers the xfer-* checks -----------------===//

#include "CopyInLoopCheck.h"
#include "CreateOnDeviceCheck.h"
#include "DeviceMismatchCheck.h"
#include "LaunchBoundLoopCheck.h"
#include "PageableAsyncCopyCheck.h"
#include "ProjectFactsCheck.h"
#include "SyncInLoopCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::xfer {

class XferTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<CopyInLoopCheck>("xfer-copy-in-loop");
    Factories.registerCheck<CreateOnDeviceCheck>("xfer-create-on-device");
    Factories.registerCheck<DeviceMismatchCheck>("xfer-device-mismatch");
    Factories.registerCheck<LaunchBoundLoopCheck>("xfer-launch-bound-loop");
    Factories.registerCheck<PageableAsyncCopyCheck>(
        "xfer-pageable-async-copy");
    Factories.registerCheck<SyncInLoopCheck>("xfer-sync-in-loop");
    // Run by xfer-tidy before the checks; see ProjectFactsCheck.h.
    Factories.registerCheck<ProjectFactsCheck>("xferindex-project-facts");
  }
};

// Registers the module with clang-tidy's registry: in the plugin when
// clang-tidy loads it, in xfer-tidy and the tests at static initialisation.
static ClangTidyModuleRegistry::Add<XferTidyModule>
    Registration("xfer-module", "Host/device transfer and sync checks.");

} // namespace clang::tidy::xfer

// Referenced by xfer-tidy and the tests so that static linking keeps this
// object file (and the registration above) in the binary.
// NOLINTNEXTLINE(misc-use-internal-linkage)
volatile int XferTidyModuleAnchorSource = 0;

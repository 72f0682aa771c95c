//===--- CostModel.cpp - Measured costs the diagnostics cite --------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "cost/CostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace clang::tidy::xfer {

static constexpr int64_t SupportedSchemaVersion = 1;

/// Shortest decimal form of a grid coordinate ("10", "0.5").
static std::string formatNumber(double Value) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof(Buffer), "%g", Value);
  return Buffer;
}

std::string Provenance::summary() const {
  std::string Text = Device.empty() ? "unknown device" : Device;
  if (!Driver.empty())
    Text += ", driver " + Driver;
  if (!CudaRuntime.empty())
    Text += ", CUDA " + CudaRuntime;
  if (!LibTorch.empty())
    Text += ", LibTorch " + LibTorch;
  if (!Date.empty())
    Text += ", measured " + Date.substr(0, 10);
  return Text;
}

/// Validates the JSON tree and fills a CostModel. Every error names the
/// source and the path of the field ("patterns.x.points[2].bytes").
class CostModelParser {
public:
  explicit CostModelParser(llvm::StringRef SourceName)
      : SourceName(SourceName) {}

  llvm::Expected<CostModel> run(llvm::StringRef JsonText);

private:
  llvm::Error error(const std::string &Path, const llvm::Twine &Message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   SourceName + ": " +
                                       (Path.empty() ? "(root)" : Path) + ": " +
                                       Message.str());
  }
  static std::string member(const std::string &Path, llvm::StringRef Key) {
    return Path.empty() ? Key.str() : Path + "." + Key.str();
  }
  static std::string element(const std::string &Path, size_t Index) {
    return Path + "[" + std::to_string(Index) + "]";
  }
  static std::vector<std::string> sortedKeys(const llvm::json::Object &O) {
    std::vector<std::string> Keys;
    for (const auto &KV : O)
      Keys.push_back(KV.first.str());
    llvm::sort(Keys);
    return Keys;
  }

  llvm::Expected<const llvm::json::Object *> object(const llvm::json::Value *V,
                                                    const std::string &Path);
  llvm::Expected<const llvm::json::Array *> array(const llvm::json::Value *V,
                                                  const std::string &Path);
  llvm::Expected<double> number(const llvm::json::Object &O,
                                llvm::StringRef Key, const std::string &Path);
  llvm::Error optionalString(const llvm::json::Object &O, llvm::StringRef Key,
                             const std::string &Path, std::string &Out);
  llvm::Error optionalBool(const llvm::json::Object &O, llvm::StringRef Key,
                           const std::string &Path, bool &Out);
  llvm::Expected<CostPoint> costPoint(const llvm::json::Object &O,
                                      const std::string &Path);
  llvm::Expected<std::vector<double>> axis(const llvm::json::Object &O,
                                           llvm::StringRef Key,
                                           const std::string &Path);

  llvm::Error provenance(const llvm::json::Object &O, const std::string &Path,
                         Provenance &Out);
  llvm::Error latencyPattern(const llvm::json::Object &O,
                             const std::string &Path,
                             CostModel::LatencyEntry &Out);
  llvm::Error gridPattern(const llvm::json::Object &O, const std::string &Path,
                          CostModel::OverlapGrid &Out);
  llvm::Error fidelityRecord(const llvm::json::Object &O,
                             const std::string &Path, MeasuredSaving &Out);

  std::string SourceName;
};

llvm::Expected<const llvm::json::Object *>
CostModelParser::object(const llvm::json::Value *V, const std::string &Path) {
  if (!V)
    return error(Path, "missing");
  if (const llvm::json::Object *O = V->getAsObject())
    return O;
  return error(Path, "expected an object");
}

llvm::Expected<const llvm::json::Array *>
CostModelParser::array(const llvm::json::Value *V, const std::string &Path) {
  if (!V)
    return error(Path, "missing");
  if (const llvm::json::Array *A = V->getAsArray())
    return A;
  return error(Path, "expected an array");
}

llvm::Expected<double> CostModelParser::number(const llvm::json::Object &O,
                                               llvm::StringRef Key,
                                               const std::string &Path) {
  const std::string FieldPath = member(Path, Key);
  const llvm::json::Value *V = O.get(Key);
  if (!V)
    return error(FieldPath, "missing");
  std::optional<double> Number = V->getAsNumber();
  if (!Number)
    return error(FieldPath, "expected a number");
  if (!std::isfinite(*Number))
    return error(FieldPath, "expected a finite number");
  return *Number;
}

llvm::Error CostModelParser::optionalString(const llvm::json::Object &O,
                                            llvm::StringRef Key,
                                            const std::string &Path,
                                            std::string &Out) {
  const llvm::json::Value *V = O.get(Key);
  if (!V || V->getAsNull())
    return llvm::Error::success();
  std::optional<llvm::StringRef> Text = V->getAsString();
  if (!Text)
    return error(member(Path, Key), "expected a string or null");
  Out = Text->str();
  return llvm::Error::success();
}

llvm::Error CostModelParser::optionalBool(const llvm::json::Object &O,
                                          llvm::StringRef Key,
                                          const std::string &Path, bool &Out) {
  const llvm::json::Value *V = O.get(Key);
  if (!V)
    return llvm::Error::success();
  std::optional<bool> Flag = V->getAsBoolean();
  if (!Flag)
    return error(member(Path, Key), "expected true or false");
  Out = *Flag;
  return llvm::Error::success();
}

llvm::Expected<CostPoint>
CostModelParser::costPoint(const llvm::json::Object &O,
                           const std::string &Path) {
  CostPoint Point;
  for (auto [Key, Field] :
       {std::pair{"median_us", &Point.MedianUs},
        std::pair{"p10_us", &Point.P10Us}, std::pair{"p90_us", &Point.P90Us}}) {
    llvm::Expected<double> Value = number(O, Key, Path);
    if (!Value)
      return Value.takeError();
    *Field = *Value;
  }
  if (!(Point.P10Us <= Point.MedianUs && Point.MedianUs <= Point.P90Us))
    return error(Path, "expected p10_us <= median_us <= p90_us");
  return Point;
}

llvm::Expected<std::vector<double>>
CostModelParser::axis(const llvm::json::Object &O, llvm::StringRef Key,
                      const std::string &Path) {
  const std::string AxisPath = member(Path, Key);
  llvm::Expected<const llvm::json::Array *> A = array(O.get(Key), AxisPath);
  if (!A)
    return A.takeError();
  if ((*A)->empty())
    return error(AxisPath, "expected at least one value");
  std::vector<double> Values;
  for (size_t I = 0; I < (*A)->size(); ++I) {
    std::optional<double> Value = (**A)[I].getAsNumber();
    if (!Value || !std::isfinite(*Value) || *Value < 0)
      return error(element(AxisPath, I), "expected a non-negative number");
    if (!Values.empty() && *Value <= Values.back())
      return error(element(AxisPath, I), "expected increasing values");
    Values.push_back(*Value);
  }
  return Values;
}

llvm::Error CostModelParser::provenance(const llvm::json::Object &O,
                                        const std::string &Path,
                                        Provenance &Out) {
  const llvm::json::Value *Device = O.get("device");
  if (!Device)
    return error(member(Path, "device"), "missing");
  if (!Device->getAsString())
    return error(member(Path, "device"), "expected a string");
  Out.Device = Device->getAsString()->str();
  for (auto [Key, Field] :
       {std::pair{"compute_capability", &Out.ComputeCapability},
        std::pair{"driver", &Out.Driver},
        std::pair{"cuda_runtime", &Out.CudaRuntime},
        std::pair{"libtorch", &Out.LibTorch},
        std::pair{"cpu_model", &Out.CpuModel}, std::pair{"date_utc", &Out.Date},
        std::pair{"tool_version", &Out.ToolVersion},
        std::pair{"command_line", &Out.CommandLine}})
    if (llvm::Error E = optionalString(O, Key, Path, *Field))
      return E;
  if (llvm::Error E = optionalBool(O, "quick", Path, Out.Quick))
    return E;
  return optionalBool(O, "complete", Path, Out.Complete);
}

llvm::Error CostModelParser::latencyPattern(const llvm::json::Object &O,
                                            const std::string &Path,
                                            CostModel::LatencyEntry &Out) {
  const llvm::json::Value *Sized = O.get("sized");
  if (!Sized)
    return error(member(Path, "sized"), "missing");
  if (!Sized->getAsBoolean())
    return error(member(Path, "sized"), "expected true or false");
  Out.Sized = *Sized->getAsBoolean();

  const std::string PointsPath = member(Path, "points");
  llvm::Expected<const llvm::json::Array *> Points =
      array(O.get("points"), PointsPath);
  if (!Points)
    return Points.takeError();
  if ((*Points)->empty())
    return error(PointsPath, "expected at least one point");
  if (!Out.Sized && (*Points)->size() != 1)
    return error(PointsPath, "expected exactly one point (the pattern is not "
                             "sized)");
  for (size_t I = 0; I < (*Points)->size(); ++I) {
    const std::string PointPath = element(PointsPath, I);
    llvm::Expected<const llvm::json::Object *> Point =
        object(&(**Points)[I], PointPath);
    if (!Point)
      return Point.takeError();
    CostModel::SizedPoint Parsed;
    if (Out.Sized) {
      const llvm::json::Value *Bytes = (*Point)->get("bytes");
      if (!Bytes)
        return error(member(PointPath, "bytes"), "missing");
      std::optional<int64_t> Count = Bytes->getAsInteger();
      if (!Count || *Count <= 0)
        return error(member(PointPath, "bytes"), "expected a positive integer");
      Parsed.Bytes = uint64_t(*Count);
      if (!Out.Points.empty() && Parsed.Bytes <= Out.Points.back().Bytes)
        return error(member(PointPath, "bytes"),
                     "expected sizes in increasing order");
    }
    llvm::Expected<CostPoint> Cost = costPoint(**Point, PointPath);
    if (!Cost)
      return Cost.takeError();
    if (Cost->P10Us < 0)
      return error(member(PointPath, "p10_us"), "expected a non-negative time");
    Parsed.Cost = *Cost;
    Out.Points.push_back(Parsed);
  }
  return llvm::Error::success();
}

llvm::Error CostModelParser::gridPattern(const llvm::json::Object &O,
                                         const std::string &Path,
                                         CostModel::OverlapGrid &Out) {
  llvm::Expected<std::vector<double>> Host = axis(O, "host_us", Path);
  if (!Host)
    return Host.takeError();
  llvm::Expected<std::vector<double>> Device = axis(O, "device_us", Path);
  if (!Device)
    return Device.takeError();
  Out.HostUs = std::move(*Host);
  Out.DeviceUs = std::move(*Device);

  const std::string CellsPath = member(Path, "cells");
  llvm::Expected<const llvm::json::Array *> Cells =
      array(O.get("cells"), CellsPath);
  if (!Cells)
    return Cells.takeError();
  const size_t Expected = Out.HostUs.size() * Out.DeviceUs.size();
  if ((*Cells)->size() != Expected)
    return error(CellsPath, "expected " + std::to_string(Expected) +
                                " cells (host_us x device_us), found " +
                                std::to_string((*Cells)->size()));
  for (size_t I = 0; I < Expected; ++I) {
    const std::string CellPath = element(CellsPath, I);
    llvm::Expected<const llvm::json::Object *> Cell =
        object(&(**Cells)[I], CellPath);
    if (!Cell)
      return Cell.takeError();
    // Row-major: the cell's own coordinates must agree with its position.
    const double WantHost = Out.HostUs[I / Out.DeviceUs.size()];
    const double WantDevice = Out.DeviceUs[I % Out.DeviceUs.size()];
    for (auto [Key, Want] :
         {std::pair{"host_us", WantHost}, std::pair{"device_us", WantDevice}}) {
      llvm::Expected<double> Got = number(**Cell, Key, CellPath);
      if (!Got)
        return Got.takeError();
      if (std::fabs(*Got - Want) > 1e-6 * std::max(1.0, Want))
        return error(member(CellPath, Key),
                     "expected " + formatNumber(Want) +
                         " (cells are row-major: host_us, then device_us)");
    }
    llvm::Expected<double> Cost =
        number(**Cell, "per_iteration_cost_us", CellPath);
    if (!Cost)
      return Cost.takeError();
    Out.CostUs.push_back(*Cost);
  }
  return llvm::Error::success();
}

llvm::Error CostModelParser::fidelityRecord(const llvm::json::Object &O,
                                            const std::string &Path,
                                            MeasuredSaving &Out) {
  for (auto [Key, Field] :
       {std::pair{"source", &Out.Source},
        std::pair{"hazard_function", &Out.HazardFunction},
        std::pair{"fixed_function", &Out.FixedFunction},
        std::pair{"hazard", &Out.Hazard}, std::pair{"fix", &Out.Fix},
        std::pair{"device", &Out.Device}})
    if (llvm::Error E = optionalString(O, Key, Path, *Field))
      return E;
  if (const llvm::json::Value *Iterations = O.get("iterations")) {
    std::optional<int64_t> Count = Iterations->getAsInteger();
    if (!Count || *Count < 0)
      return error(member(Path, "iterations"),
                   "expected a non-negative integer");
    Out.Iterations = uint64_t(*Count);
  }
  llvm::Expected<double> Saving = number(O, "saving_per_iteration_us", Path);
  if (!Saving)
    return Saving.takeError();
  Out.Saving.MedianUs = *Saving;
  // The interval is optional; without it the saving is a single figure.
  Out.Saving.P10Us = Out.Saving.P90Us = *Saving;
  if (O.get("saving_p10_us") || O.get("saving_p90_us")) {
    llvm::Expected<double> P10 = number(O, "saving_p10_us", Path);
    if (!P10)
      return P10.takeError();
    llvm::Expected<double> P90 = number(O, "saving_p90_us", Path);
    if (!P90)
      return P90.takeError();
    Out.Saving.P10Us = *P10;
    Out.Saving.P90Us = *P90;
  }
  for (auto [Key, Field] :
       {std::pair{"hazard_iteration", &Out.HazardIteration},
        std::pair{"fixed_iteration", &Out.FixedIteration}}) {
    const llvm::json::Value *V = O.get(Key);
    if (!V)
      continue;
    llvm::Expected<const llvm::json::Object *> Point =
        object(V, member(Path, Key));
    if (!Point)
      return Point.takeError();
    llvm::Expected<CostPoint> Cost = costPoint(**Point, member(Path, Key));
    if (!Cost)
      return Cost.takeError();
    *Field = *Cost;
  }
  return llvm::Error::success();
}

llvm::Expected<CostModel> CostModelParser::run(llvm::StringRef JsonText) {
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(JsonText);
  if (!Parsed)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        SourceName + ": invalid JSON: " + llvm::toString(Parsed.takeError()));
  llvm::Expected<const llvm::json::Object *> Root = object(&*Parsed, "");
  if (!Root)
    return Root.takeError();

  const llvm::json::Value *Version = (*Root)->get("schema_version");
  if (!Version)
    return error("schema_version", "missing");
  std::optional<int64_t> VersionNumber = Version->getAsInteger();
  if (!VersionNumber)
    return error("schema_version", "expected an integer");
  if (*VersionNumber != SupportedSchemaVersion)
    return error("schema_version",
                 "unsupported version " + llvm::Twine(*VersionNumber) +
                     " (this build reads version " +
                     llvm::Twine(SupportedSchemaVersion) + ")");

  CostModel Model;
  llvm::Expected<const llvm::json::Object *> ProvenanceObject =
      object((*Root)->get("provenance"), "provenance");
  if (!ProvenanceObject)
    return ProvenanceObject.takeError();
  if (llvm::Error E = provenance(**ProvenanceObject, "provenance", Model.Prov))
    return E;

  llvm::Expected<const llvm::json::Object *> Patterns =
      object((*Root)->get("patterns"), "patterns");
  if (!Patterns)
    return Patterns.takeError();
  if ((*Patterns)->empty())
    return error("patterns", "expected at least one pattern");
  for (const std::string &Id : sortedKeys(**Patterns)) {
    const std::string Path = member("patterns", Id);
    llvm::Expected<const llvm::json::Object *> Pattern =
        object((*Patterns)->get(Id), Path);
    if (!Pattern)
      return Pattern.takeError();
    const llvm::json::Value *Kind = (*Pattern)->get("kind");
    if (!Kind)
      return error(member(Path, "kind"), "missing");
    std::optional<llvm::StringRef> KindName = Kind->getAsString();
    if (KindName == "latency") {
      CostModel::LatencyEntry Entry;
      if (llvm::Error E = latencyPattern(**Pattern, Path, Entry))
        return E;
      Model.Latencies[Id] = std::move(Entry);
    } else if (KindName == "overlap_grid") {
      CostModel::OverlapGrid Grid;
      if (llvm::Error E = gridPattern(**Pattern, Path, Grid))
        return E;
      Model.Grids[Id] = std::move(Grid);
    } else {
      return error(member(Path, "kind"),
                   "expected \"latency\" or \"overlap_grid\"");
    }
  }

  if (const llvm::json::Value *FidelityValue = (*Root)->get("fidelity")) {
    llvm::Expected<const llvm::json::Object *> FidelityObject =
        object(FidelityValue, "fidelity");
    if (!FidelityObject)
      return FidelityObject.takeError();
    for (const std::string &Id : sortedKeys(**FidelityObject)) {
      const std::string Path = member("fidelity", Id);
      llvm::Expected<const llvm::json::Object *> Record =
          object((*FidelityObject)->get(Id), Path);
      if (!Record)
        return Record.takeError();
      MeasuredSaving Saving;
      Saving.Id = Id;
      if (llvm::Error E = fidelityRecord(**Record, Path, Saving))
        return E;
      Model.Fidelity.push_back(std::move(Saving));
    }
  }
  return Model;
}

llvm::Expected<CostModel> CostModel::parse(llvm::StringRef JsonText,
                                           llvm::StringRef SourceName) {
  return CostModelParser(SourceName).run(JsonText);
}

llvm::Expected<CostModel> CostModel::loadFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(
        Buffer.getError(),
        Path + ": cannot read: " + Buffer.getError().message());
  return parse((*Buffer)->getBuffer(), Path);
}

const CostModel *CostModel::builtin() {
#ifdef XFER_HAS_DEFAULT_COST_MODEL
  // Parsed on first use; C++11 guarantees a thread-safe initialization.
  static const std::optional<CostModel> Model =
      []() -> std::optional<CostModel> {
    static constexpr const char DefaultJson[] =
#include "DefaultCostModel.inc"
        ;
    llvm::Expected<CostModel> Parsed =
        parse(DefaultJson, "builtin default cost model");
    if (!Parsed) {
      // The tests parse the same file; a broken embed shows up there.
      llvm::consumeError(Parsed.takeError());
      return std::nullopt;
    }
    return std::move(*Parsed);
  }();
  return Model ? &*Model : nullptr;
#else
  return nullptr;
#endif
}

/// \p Us, or the largest double when it overflowed: a model may hold any
/// finite times, and the notes and JSON reports cannot state infinity.
static double saturated(double Us) {
  return std::isinf(Us) ? std::numeric_limits<double>::max() : Us;
}

static CostPoint saturated(CostPoint Point) {
  return {saturated(Point.MedianUs), saturated(Point.P10Us),
          saturated(Point.P90Us)};
}

/// Interpolates one component between two sizes in log-log space, where a
/// transfer's cost is close to a straight line; falls back to linear in
/// log(bytes) when a time is not positive.
static double logLogInterpolate(double LogBytes, double LogLow, double LogHigh,
                                double Low, double High) {
  const double Fraction = (LogBytes - LogLow) / (LogHigh - LogLow);
  if (Low > 0 && High > 0)
    return std::exp(std::log(Low) +
                    Fraction * (std::log(High) - std::log(Low)));
  return Low + Fraction * (High - Low);
}

std::optional<CostPoint>
CostModel::latency(llvm::StringRef PatternId,
                   std::optional<uint64_t> Bytes) const {
  auto It = Latencies.find(PatternId);
  if (It == Latencies.end())
    return std::nullopt;
  const LatencyEntry &Entry = It->second;
  const std::vector<SizedPoint> &Points = Entry.Points;
  if (!Entry.Sized || !Bytes || *Bytes <= Points.front().Bytes)
    return Points.front().Cost;
  const SizedPoint &Last = Points.back();
  if (*Bytes >= Last.Bytes) {
    if (*Bytes == Last.Bytes || Points.size() == 1)
      return Last.Cost; // A single size cannot say how cost grows.
    // Linear in bytes along the last segment: at the largest sizes a copy
    // is bandwidth-bound, so time grows in proportion to the extra bytes.
    const SizedPoint &Previous = Points[Points.size() - 2];
    const double Extra = double(*Bytes - Last.Bytes);
    const double Span = double(Last.Bytes - Previous.Bytes);
    auto Extend = [&](double High, double Low) {
      double Slope = (High - Low) / Span;
      if (Slope <= 0) // Noise made the last segment flat: scale instead.
        Slope = High / double(Last.Bytes);
      return High + Slope * Extra;
    };
    CostPoint Result{Extend(Last.Cost.MedianUs, Previous.Cost.MedianUs),
                     Extend(Last.Cost.P10Us, Previous.Cost.P10Us),
                     Extend(Last.Cost.P90Us, Previous.Cost.P90Us)};
    // Separate slopes can cross; keep the percentiles around the median.
    Result.P10Us = std::min(Result.P10Us, Result.MedianUs);
    Result.P90Us = std::max(Result.P90Us, Result.MedianUs);
    return saturated(Result);
  }
  auto Upper =
      llvm::upper_bound(Points, *Bytes, [](uint64_t B, const SizedPoint &P) {
        return B < P.Bytes;
      });
  const SizedPoint &High = *Upper;
  const SizedPoint &Low = *std::prev(Upper);
  if (Low.Bytes == *Bytes)
    return Low.Cost;
  const double LogBytes = std::log(double(*Bytes));
  const double LogLow = std::log(double(Low.Bytes));
  const double LogHigh = std::log(double(High.Bytes));
  return saturated(
      CostPoint{logLogInterpolate(LogBytes, LogLow, LogHigh, Low.Cost.MedianUs,
                                  High.Cost.MedianUs),
                logLogInterpolate(LogBytes, LogLow, LogHigh, Low.Cost.P10Us,
                                  High.Cost.P10Us),
                logLogInterpolate(LogBytes, LogLow, LogHigh, Low.Cost.P90Us,
                                  High.Cost.P90Us)});
}

/// Index of the segment [Axis[I], Axis[I + 1]] to interpolate \p Value in,
/// and the fraction along it (0 when the axis has one value).
static std::pair<size_t, double> locate(const std::vector<double> &Axis,
                                        double Value) {
  if (Axis.size() == 1)
    return {0, 0.0};
  size_t I = 0;
  while (I + 2 < Axis.size() && Value > Axis[I + 1])
    ++I;
  double Fraction = (Value - Axis[I]) / (Axis[I + 1] - Axis[I]);
  return {I, std::clamp(Fraction, 0.0, 1.0)};
}

double CostModel::OverlapGrid::interpolate(double Host, double Device) const {
  // Inside the grid: bilinear. Outside, the cost is modelled as the
  // no-work corner plus a lost overlap that grows in proportion to the work
  // (as min(H, D) does): the point is scaled back onto the grid's edge and
  // its excess over the corner scaled up by the same factor. Where the edge
  // lies below the corner (work hides the sync), the edge value is kept.
  Host = std::max(Host, 0.0);
  Device = std::max(Device, 0.0);
  double Scale = 1.0;
  if (Host > HostUs.back() && HostUs.back() > 0)
    Scale = std::max(Scale, Host / HostUs.back());
  if (Device > DeviceUs.back() && DeviceUs.back() > 0)
    Scale = std::max(Scale, Device / DeviceUs.back());
  Host /= Scale;
  Device /= Scale;

  auto [H, TH] = locate(HostUs, Host);
  auto [D, TD] = locate(DeviceUs, Device);
  const size_t H1 = std::min(H + 1, HostUs.size() - 1);
  const size_t D1 = std::min(D + 1, DeviceUs.size() - 1);
  const double Inside = (1 - TH) * (1 - TD) * at(H, D) +
                        TH * (1 - TD) * at(H1, D) + (1 - TH) * TD * at(H, D1) +
                        TH * TD * at(H1, D1);
  const double Excess = std::max(0.0, Inside - at(0, 0));
  return saturated(std::max(0.0, Inside + (Scale - 1) * Excess));
}

std::optional<double> CostModel::syncOverlapLossUs(llvm::StringRef GridId,
                                                   double HostWorkUs,
                                                   double DeviceWorkUs) const {
  auto It = Grids.find(GridId);
  if (It == Grids.end())
    return std::nullopt;
  return It->second.interpolate(HostWorkUs, DeviceWorkUs);
}

std::vector<std::string> CostModel::patternIds() const {
  std::vector<std::string> Ids;
  for (const auto &Entry : Latencies)
    Ids.push_back(Entry.getKey().str());
  for (const auto &Entry : Grids)
    Ids.push_back(Entry.getKey().str());
  llvm::sort(Ids);
  return Ids;
}

const MeasuredSaving *CostModel::fidelity(llvm::StringRef Id) const {
  for (const MeasuredSaving &Saving : Fidelity)
    if (Saving.Id == Id)
      return &Saving;
  return nullptr;
}

} // namespace clang::tidy::xfer

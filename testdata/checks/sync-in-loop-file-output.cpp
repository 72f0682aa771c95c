// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// A test program that writes each sample's loss to a result file must read
// it back: silent unless ReportOutputReadBacks. A loss only printed, or
// written to a file by a training loop (a log), stays a finding.
#include <torch/torch.h>
#include <cstdio>
#include <fstream>
#include <iostream>

torch::Tensor criterion(const torch::Tensor &A, const torch::Tensor &B);

// Negatives: per-sample results written to a file, read there or earlier.
void testModel(torch::nn::Linear &Model, torch::Tensor Inputs, int Samples) {
  torch::NoGradGuard NoGrad;
  std::ofstream Out("loss.txt");
  FILE *Csv = fopen("loss.csv", "w");
  double Total = 0.0;
  for (int S = 0; S < Samples; ++S) {
    torch::Tensor X = Inputs[S].to(torch::kCUDA);
    torch::Tensor Loss = criterion(Model->forward(X), X);
    Total += Loss.item<float>();
    Out << S << ' ' << Loss.item<float>() << "\n";
  }
  for (int S = 0; S < Samples; ++S) {
    torch::Tensor X = Inputs[S].to(torch::kCUDA);
    torch::Tensor Loss = criterion(Model->forward(X), X);
    fprintf(Csv, "%d,%f\n", S, Loss.item<float>());
  }
  fclose(Csv);
}

// Positives: printed only, written to stdout, or a training loop's log.
void printedOnly(torch::nn::Linear &Model, torch::Tensor Inputs,
                 int Samples) {
  torch::NoGradGuard NoGrad;
  for (int S = 0; S < Samples; ++S) {
    torch::Tensor X = Inputs[S].to(torch::kCUDA);
    torch::Tensor Loss = criterion(Model->forward(X), X);
    std::cout << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 37: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :37:3: note: loop starts here
    fprintf(stdout, "%f\n", Loss.item<float>());
    // XFER-NOTE: :[[@LINE-1]]:34: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
  }
}

void trainAndLog(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
                 torch::Tensor Inputs, int Steps) {
  std::ofstream Log("train.log");
  for (int Step = 0; Step < Steps; ++Step) {
    torch::Tensor X = Inputs[Step].to(torch::kCUDA);
    torch::Tensor Loss = criterion(Model->forward(X), X);
    Optimizer.zero_grad();
    Loss.backward();
    Optimizer.step();
    Log << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 51: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :51:3: note: loop starts here
  }
}

// SPDX-License-Identifier: MIT
// A model of topk_lane_group's insertion rounds (issue 59; glsl/topk_lane_group.comp, landed in the
// thirteenth session), beside lane_rounds_sim.py's of topk_lane: a warp of 32 rows' lists of one part each;
// the row's threshold tau is the K-th smallest of the P parts' first S1 keys (and, with S2 > 0, again of
// everything the parts have seen at offset S2); per batch of B the warp runs as many rounds as its busiest
// list has entries at or below tau that beat its worst. queue = 1: entries queued against tau alone and
// inserted at the end (the rounds: the busiest queue). Random keys. Plain C++ (no numpy on the CI machines).
// usage: g++ -O2 -o /tmp/lane_group_sim bench/experiments/lane_group_sim.cpp &&
//        /tmp/lane_group_sim N K B P S1 QUEUE [S2]    e.g. 4096 16 16 16 16 0 64
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
// lanes with a row threshold from each part's first S1 elements (tau = K-th best of the row's P*S1);
// the lists start with their first S1 sorted (network) and continue by batches of B with pending = v < worst
// && v <= tau. queue=1: pending go to a queue, drained once at the end (rounds = max over lanes of the
// queue's useful entries)
int main(int argc, char** argv) {
    int S2 = argc > 7 ? atoi(argv[7]) : 0;
    int n = atoi(argv[1]), K = atoi(argv[2]), B = atoi(argv[3]), P = atoi(argv[4]), S1 = atoi(argv[5]),
        queue = atoi(argv[6]);
    int L = (n + P - 1) / P;
    const int R = 32;
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(0, 1);
    int reps = 16;
    double rounds = 0, surv = 0;
    for (int rep = 0; rep < reps; ++rep) {
        std::vector<std::vector<double>> x(R, std::vector<double>(n));
        for (auto& v : x)
            for (auto& e : v) e = u(g);
        std::vector<double> tau(R, 2.0);
        for (int r = 0; r < R; ++r) {
            std::vector<double> s;
            for (int p = 0; p < P; ++p)
                for (int q = 0; q < S1; ++q) s.push_back(x[r][p * L + q]);
            std::sort(s.begin(), s.end());
            if (S1 > 0) tau[r] = s[K - 1];
        }
        std::vector<double> tau2(R, 2.0);
        if (S2 > 0)
            for (int r = 0; r < R; ++r) {
                std::vector<double> s;
                for (int p = 0; p < P; ++p)
                    for (int q = 0; q < S2 && p * L + q < n; ++q) s.push_back(x[r][p * L + q]);
                std::sort(s.begin(), s.end());
                tau2[r] = std::min(tau[r], s[K - 1]);
            }
        for (int p = 0; p < P; ++p) {
            std::vector<std::vector<double>> li(R);
            for (int r = 0; r < R; ++r) {
                for (int q = 0; q < S1; ++q) li[r].push_back(x[r][p * L + q]);
                std::sort(li[r].begin(), li[r].end());
                if ((int)li[r].size() > K) li[r].resize(K);
            }
            if (queue) {
                int mx = 0;
                for (int r = 0; r < R; ++r) {
                    int c = 0;
                    for (int q = S1; q < L; ++q)
                        if (x[r][p * L + q] <= tau[r]) ++c;
                    mx = std::max(mx, c);
                    surv += c;
                }
                rounds += mx;
                continue;
            }
            for (int j = S1; j < L; j += B) {
                int mx = 0;
                for (int r = 0; r < R; ++r) {
                    auto& l = li[r];
                    double w = (int)l.size() < K ? 2.0 : l.back();
                    double T = (S2 > 0 && j >= S2) ? tau2[r] : tau[r];
                    int c = 0;
                    for (int q = j; q < std::min(L, j + B); ++q) {
                        double v = x[r][p * L + q];
                        if (v < w && v <= T) ++c;
                    }
                    mx = std::max(mx, c);
                    surv += c;
                    for (int q = j; q < std::min(L, j + B); ++q) {
                        double v = x[r][p * L + q];
                        double w2 = (int)l.size() < K ? 2.0 : l.back();
                        if (v < w2 && v <= T) {
                            l.push_back(v);
                            std::sort(l.begin(), l.end());
                            if ((int)l.size() > K) l.pop_back();
                        }
                    }
                }
                rounds += mx;
            }
        }
    }
    printf("n=%d K=%d B=%d P=%d S1=%d queue=%d: rounds/warp %.1f (L=%d), pending/lane %.1f\n", n, K, B, P, S1,
           queue, rounds / reps / P, L, surv / reps / P / R);
}

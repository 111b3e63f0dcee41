// SPDX-License-Identifier: MIT
// A model of topk_lane_group's insertion rounds (issue 59; glsl/topk_lane_group.comp), beside
// lane_rounds_sim.py's of topk_lane: a warp of 32 rows' lists of one part each; the row's threshold tau is the
// K-th smallest of the P parts' first S1 keys (and, with S2 > 0, again of the parts' lists once they have seen
// S2 elements each; with AGAIN = 1, again at 2 S2, 4 S2, ...); per batch of B the warp runs as many rounds as
// its busiest list has entries at or below tau that beat its worst. queue = 1: entries queued against tau
// alone and inserted at the end (the rounds: the busiest queue). Random keys. Plain C++ (no numpy on the CI
// machines).
// usage: g++ -O2 -o /tmp/lane_group_sim bench/experiments/lane_group_sim.cpp &&
//        /tmp/lane_group_sim N K B P S1 QUEUE [S2 [AGAIN]]    e.g. 4096 16 16 8 16 0 96 1
// Printed (fourteenth session): 4096 16 16 8 16 0 96: 77.4 rounds a warp; 96 1: 63.4; 48 1: 55.6; 32 1:
// 54.4; B = 32, 96: 59.4; P = 16, 64: 30.7, 32 1: 24.6 (the floor: one round a batch, L / B - 1).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s N K B P S1 QUEUE [S2 [AGAIN]]\n", argv[0]);
        return 2;
    }
    const int n = atoi(argv[1]), K = atoi(argv[2]), B = atoi(argv[3]), P = atoi(argv[4]), S1 = atoi(argv[5]),
              queue = atoi(argv[6]), S2 = argc > 7 ? atoi(argv[7]) : 0, again = argc > 8 ? atoi(argv[8]) : 0;
    const int L = (n + P - 1) / P, R = 32, reps = 8;
    if (K < 1 || B < 1 || P < 1 || S1 < K || S1 > L || K > P * S1) {
        fprintf(stderr, "need 1 <= K <= S1 <= N / P, B >= 1\n");
        return 2;
    }
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(0, 1);
    double rounds = 0, surv = 0;
    for (int rep = 0; rep < reps; ++rep) {
        std::vector<std::vector<double>> x(R, std::vector<double>(n));  // at(): 2.0 past the row's end
        for (auto& v : x)
            for (auto& e : v) e = u(g);
        // lists[r][p]: part p's best K of row r, sorted; tau[r] the row's threshold
        std::vector<std::vector<std::vector<double>>> lists(R, std::vector<std::vector<double>>(P));
        std::vector<double> tau(R);
        auto take = [&](int r) {  // the K-th smallest of the row's lists
            std::vector<double> s;
            for (auto& l : lists[r]) s.insert(s.end(), l.begin(), l.end());
            std::sort(s.begin(), s.end());
            return s[K - 1];
        };
        auto at = [&](int r, int p, int q) { return p * L + q < n ? x[r][p * L + q] : 2.0; };
        for (int r = 0; r < R; ++r) {
            for (int p = 0; p < P; ++p) {
                for (int q = 0; q < S1; ++q) lists[r][p].push_back(at(r, p, q));
                std::sort(lists[r][p].begin(), lists[r][p].end());
                lists[r][p].resize(K);
            }
            tau[r] = take(r);
        }
        if (queue) {
            for (int p = 0; p < P; ++p) {
                int mx = 0;
                for (int r = 0; r < R; ++r) {
                    int c = 0;
                    for (int q = S1; q < L; ++q) c += at(r, p, q) <= tau[r];
                    mx = std::max(mx, c);
                    surv += c;
                }
                rounds += mx;
            }
            continue;
        }
        int next = S2;
        for (int j = S1; j < L; j += B) {
            if (next > 0 && j >= next) {
                for (int r = 0; r < R; ++r) tau[r] = std::min(tau[r], take(r));
                next = again ? 2 * j : 0;
            }
            for (int p = 0; p < P; ++p) {
                int mx = 0;
                for (int r = 0; r < R; ++r) {
                    auto& l = lists[r][p];
                    int c = 0;
                    for (int q = j; q < std::min(L, j + B); ++q) c += at(r, p, q) < l.back() && at(r, p, q) <= tau[r];
                    mx = std::max(mx, c);
                    surv += c;
                    for (int q = j; q < std::min(L, j + B); ++q) {
                        const double v = at(r, p, q);
                        if (v < l.back() && v <= tau[r]) {
                            l.back() = v;
                            std::sort(l.begin(), l.end());
                        }
                    }
                }
                rounds += mx;
            }
        }
    }
    printf("n=%d K=%d B=%d P=%d S1=%d queue=%d S2=%d again=%d: rounds/warp %.1f (L=%d), pending/lane %.1f\n", n, K,
           B, P, S1, queue, S2, again, rounds / reps / P, L, surv / reps / P / R);
}

// lut_days: days[i] = days in month m[i] (1..12) of year y[i] from a __device__ lookup table plus the Gregorian leap rule
// run: --grid 3 --block 4 --arg y=[2023,2024,1900,2000,2024,2023,2100,2400,1999,2024,2024,2023] --arg m=[1,2,2,2,4,9,2,2,12,11,6,2] --arg days=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
__device__ const int kDaysInMonth[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

static __device__ bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

extern "C" __global__ void lut_days(const int *y, const int *m, int *days, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int month = m[i];
  days[i] = kDaysInMonth[month - 1] + (month == 2 && is_leap(y[i]));
}

// nested_if: cls[i] classifies (a[i], b[i]) by nested ifs: quadrant 1-4, 5/6 on an axis, 0 at the origin; ties to b
// run: --grid 3 --block 4 --arg a=[0,3,-3,-3,3,0,0,5,-5,7,0,2] --arg b=[0,4,4,-4,-4,6,-6,0,0,7,0,-2] --arg cls=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 1 --block 4 --arg a=[1,-1] --arg b=[-1,1] --arg cls=[0,0] --arg n=2
extern "C" __global__ void nested_if(const int *a, const int *b, int *cls, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i], c;
  if (x == 0) {
    if (y == 0)
      c = 0;
    else
      c = 6;
  } else if (y == 0) {
    c = 5;
  } else if (x > 0) {
    if (y > 0)
      c = x == y ? 10 : 1;
    else
      c = 4;
  } else {
    if (y > 0)
      c = 2;
    else
      c = 3;
  }
  cls[i] = c;
}

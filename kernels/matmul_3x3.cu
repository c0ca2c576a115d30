// matmul_3x3: c = a * b for 3x3 int matrices, one thread per output element (block 3,3)
// run: --grid 1 --block 3,3 --arg a=[1,2,3,4,5,6,7,8,9] --arg b=[9,8,7,6,5,4,3,2,1] --arg c=[0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3,3 --arg a=[1,0,0,0,1,0,0,0,1] --arg b=[86,47,13,-66,-7,-76,-91,-66,26] --arg c=[0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3,3 --arg a=[-556,-472,977,376,-107,595,283,751,-384] --arg b=[-138,38,706,-210,175,-282,93,198,-166] --arg c=[0,0,0,0,0,0,0,0,0]
extern "C" __global__ void matmul_3x3(const int *a, const int *b, int *c) {
  int row = threadIdx.y, col = threadIdx.x;
  int acc = 0;
  for (int k = 0; k < 3; k++) acc += a[row * 3 + k] * b[k * 3 + col];
  c[row * 3 + col] = acc;
}

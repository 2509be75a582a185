// Makes conv-and-batchnorm-cpu-cudnn9.19.log: real cuDNN API log blocks written without a GPU (no
// handle: cudnnCreate fails, an operation graph finalizes without one, a legacy call logs its
// parameters and then fails). A conv forward graph (fp16 NHWC, 3x3, pad 1) through the backend API,
// then the legacy batch-norm forward-training call PyTorch makes (which fails here for want of a
// handle: its E! block follows).
//   g++ -std=c++17 make_cpu_excerpt.cpp -I$CUDA/include -L$CUDA/lib -lcudnn -o make_cpu_excerpt
//   CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=conv-and-batchnorm-cpu-cudnn9.19.log ./make_cpu_excerpt
#include <cudnn.h>
#include <cstdint>
#include <cstdio>
#define C(x)                                                            \
  do {                                                                  \
    auto s = (x);                                                       \
    if (s) printf("%s -> %d %s\n", #x, (int)s, cudnnGetErrorString(s)); \
  } while (0)
cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t* dims, const int64_t* strides, cudnnDataType_t dt,
                                bool virt = false) {
  cudnnBackendDescriptor_t t;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
  int64_t align = 16;
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
  bool v = virt;
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
  C(cudnnBackendFinalize(t));
  return t;
}
int main() {
  cudnnHandle_t h = nullptr;
  C(cudnnCreate(&h));
  int64_t xd[] = {8, 64, 28, 28}, xs[] = {50176, 1, 1792, 64};
  int64_t wd[] = {128, 64, 3, 3}, ws[] = {576, 1, 192, 64};
  int64_t yd[] = {8, 128, 28, 28}, ys[] = {100352, 1, 3584, 128};
  auto x = tensor(1, xd, xs, CUDNN_DATA_HALF), w = tensor(2, wd, ws, CUDNN_DATA_HALF),
       y = tensor(3, yd, ys, CUDNN_DATA_HALF);
  cudnnBackendDescriptor_t conv;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
  int64_t nd = 2, pad[] = {1, 1}, st[] = {1, 1}, dil[] = {1, 1};
  cudnnDataType_t ct = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nd));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil));
  C(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, st));
  C(cudnnBackendFinalize(conv));
  cudnnBackendDescriptor_t op;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op));
  float alpha = 1, beta = 0;
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                             &x));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                             &w));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                             &y));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                             CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1,
                             &alpha));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
  C(cudnnBackendFinalize(op));
  cudnnBackendDescriptor_t g;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
  C(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
  if (h) C(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
  C(cudnnBackendFinalize(g));
  cudnnTensorDescriptor_t bx, bs;
  C(cudnnCreateTensorDescriptor(&bx));
  C(cudnnCreateTensorDescriptor(&bs));
  int bxd[] = {32, 64, 56, 56}, bxs[] = {200704, 1, 3584, 64};
  C(cudnnSetTensorNdDescriptor(bx, CUDNN_DATA_HALF, 4, bxd, bxs));
  C(cudnnSetTensor4dDescriptor(bs, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 64, 1, 1));
  float a = 1, b = 0;
  void* p = reinterpret_cast<void*>(0x1000);  // never dereferenced: the call fails first
  C(cudnnBatchNormalizationForwardTrainingEx(h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN,
                                             &a, &b, bx, p, nullptr, nullptr, bx, p, bs, p, p, 0.1, p, p,
                                             1e-5, p, p, nullptr, p, 0, p, 0));
  return 0;
}

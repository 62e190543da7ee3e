// A class with a pure virtual function, created with new in a kernel of a
// file that includes no header (cuda-samples' newdelete): the device
// operators new/delete and __cxa_pure_virtual must resolve.
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float side;
  __device__ explicit Square(float s) : side(s) {}
  __device__ float area() const override { return side * side; }
};
__global__ void areas(float *out) {
  Shape *s = new Square(3.0f);
  out[threadIdx.x] = s->area();
  delete s;
}

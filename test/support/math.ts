export const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/* repeat.h - X256(M, p) expands M(p0000) ... M(p3333): 256 uses of M with
 * distinct base-4 suffixes, for test programs that need many distinct
 * functions (storm.c, stepper.c). */
#ifndef CCPROF_TEST_REPEAT_H
#define CCPROF_TEST_REPEAT_H

#define X4(M, n) M(n##0) M(n##1) M(n##2) M(n##3)
#define X16(M, n) X4(M, n##0) X4(M, n##1) X4(M, n##2) X4(M, n##3)
#define X64(M, n) X16(M, n##0) X16(M, n##1) X16(M, n##2) X16(M, n##3)
#define X256(M, n) X64(M, n##0) X64(M, n##1) X64(M, n##2) X64(M, n##3)

#endif

#!/usr/bin/env python3
"""Writes Ni_zhou04.eam.alloy, a setfl (LAMMPS pair_style eam/alloy) table of
the analytic embedded-atom model for nickel of

  X. W. Zhou, R. A. Johnson and H. N. G. Wadley, "Misfit-energy-increasing
  dislocations in vapor-deposited CoFe/NiFe multilayers", Phys. Rev. B 69,
  144113 (2004), Table III (Ni).

The model's functions are smooth but not zero at LAMMPS's shear-example
cutoff (4.8 A); we keep that cutoff, so the shear workload matches, and
multiply pair and density functions by a cosine taper over the last 0.5 A
so that forces stay continuous. Run it to regenerate the table; it prints
the fcc lattice constant and cohesive energy the table gives (published:
3.52 A, 4.45 eV).

usage: inputs/md/make_ni_eam.py [OUTPUT]   (default: next to this script)
"""
import math
import os
import sys

# Zhou et al. 2004, Table III, Ni.
RE, FE, RHOE, RHOS = 2.488746, 2.007018, 27.562015, 27.930410
ALPHA, BETA, A, B, KAPPA, LAMBDA = 8.383453, 4.471175, 0.429046, 0.633531, 0.443599, 0.820658
FN = (-2.693513, -0.076445, 0.241442, -2.375626)
F = (-2.70, 0.0, 0.265390, -0.152856)
ETA, FEQ = 0.469000, -2.699486
MASS, Z, ALAT = 58.6934, 28, 3.52

CUTOFF = 4.8          # LAMMPS examples/shear's cutoff for Ni_u3.eam
TAPER = 0.5           # width of the cosine taper below the cutoff (A)
NR, NRHO = 2000, 2000
RHOMAX = 2.0 * RHOE   # densities above are extrapolated linearly by LAMMPS and md


def taper(r):
    if r >= CUTOFF:
        return 0.0
    if r <= CUTOFF - TAPER:
        return 1.0
    return 0.5 * (1.0 + math.cos(math.pi * (r - CUTOFF + TAPER) / TAPER))


def density(r):
    return FE * math.exp(-BETA * (r / RE - 1.0)) / (1.0 + (r / RE - LAMBDA) ** 20) * taper(r)


def pair(r):
    a = A * math.exp(-ALPHA * (r / RE - 1.0)) / (1.0 + (r / RE - KAPPA) ** 20)
    b = B * math.exp(-BETA * (r / RE - 1.0)) / (1.0 + (r / RE - LAMBDA) ** 20)
    return (a - b) * taper(r)


def embed(rho):
    rhon, rhoo = 0.85 * RHOE, 1.15 * RHOE
    if rho < rhon:
        return sum(c * (rho / rhon - 1.0) ** i for i, c in enumerate(FN))
    if rho < rhoo:
        return sum(c * (rho / RHOE - 1.0) ** i for i, c in enumerate(F))
    x = (rho / RHOS) ** ETA
    return FEQ * (1.0 - math.log(x)) * x


def fcc_energy(a):
    """Energy per atom of a perfect fcc crystal (direct lattice sum)."""
    rho, phi = 0.0, 0.0
    n = int(CUTOFF / a) + 2
    basis = ((0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5))
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            for k in range(-n, n + 1):
                for b in basis:
                    r = a * math.sqrt((i + b[0]) ** 2 + (j + b[1]) ** 2 + (k + b[2]) ** 2)
                    if 0 < r < CUTOFF:
                        rho += density(r)
                        phi += pair(r)
    return embed(rho) + 0.5 * phi


def write(path):
    dr, drho = CUTOFF / (NR - 1), RHOMAX / (NRHO - 1)
    with open(path + ".tmp", "w") as out:
        out.write("Ni, Zhou, Johnson and Wadley, Phys. Rev. B 69, 144113 (2004), Table III\n")
        out.write("tabulated by fabricbench inputs/md/make_ni_eam.py: cutoff %.1f A, cosine taper %.1f A\n" % (CUTOFF, TAPER))
        out.write("units metal (eV, Angstrom)\n")
        out.write("1 Ni\n")
        out.write("%d %.16e %d %.16e %.16e\n" % (NRHO, drho, NR, dr, CUTOFF))
        out.write("%d %.4f %.4f fcc\n" % (Z, MASS, ALAT))

        def block(values):
            for i in range(0, len(values), 5):
                out.write(" ".join("%.16e" % v for v in values[i:i + 5]) + "\n")

        block([embed(k * drho) for k in range(NRHO)])
        block([density(k * dr) for k in range(NR)])
        block([k * dr * pair(k * dr) for k in range(NR)])
    os.replace(path + ".tmp", path)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "Ni_zhou04.eam.alloy")
    write(path)
    # golden-section search for the equilibrium lattice constant
    lo, hi = 3.3, 3.8
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a1, a2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if fcc_energy(a1) < fcc_energy(a2):
            hi = a2
        else:
            lo = a1
    a0 = 0.5 * (lo + hi)
    print("%s: fcc Ni a0 = %.4f A, cohesive energy %.4f eV/atom" % (path, a0, -fcc_energy(a0)))


if __name__ == "__main__":
    main()

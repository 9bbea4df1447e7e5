# Copyright 2026 The dynamics_ros Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


"""
Write Pinocchio's reference values of the dynamics quantities the tests compare.

The distro environment (`make test-distro`: Python 3.12, numpy 1.26) cannot
install Pinocchio (its cp312 wheels need numpy >= 2), so the oracle's values
are computed here, in the development venv, and stored:
test/data/oracle_reference.npz holds, for example-robot-data's arms and the
generated test robots (test/robot_sets.py), a few random states each and
Pinocchio's rnea (with and without external wrenches), crba, aba (both),
gravity, nonlinear effects, Coriolis matrix and the derivatives of RNEA and
ABA, in dynamics_ros' joint order. test/dynamics/test_oracle_reference.py
compares dynamics_ros against them in both environments and, where
Pinocchio is installed, checks the file is current.

Usage (from the repository root, development venv):
    .venv/bin/python scripts/write_oracle_reference.py
"""

import hashlib
import os
import re
import sys

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(REPO_ROOT, 'test', 'data', 'oracle_reference.npz')
# States per robot: each one exercises every quantity; the oracle tests run
# 200 per robot where Pinocchio is installed.
STATES = 2
SEED = 41


def robots():
    """Return [(name, URDF text)]: example-robot-data's arms, generated."""
    from robot_files import EXAMPLE_ARMS, example_arm_xml
    from robot_sets import generated_robots
    return [(name, example_arm_xml(name)) for name in EXAMPLE_ARMS] + \
        generated_robots()


# A number of a URDF text: the generated robots' inertias come out of a
# matrix product whose last digit differs between numpy releases (2.4 and
# Ubuntu 24.04's 1.26 here), not the robot.
NUMBER = re.compile(r'-?\d+\.\d*(?:[eE][-+]?\d+)?')


def digest(xml):
    """
    Return the SHA-256 of a URDF text (the stored values are of it).

    Its numbers to 10 significant digits: a robot whose numbers differ in
    the last digits only (1e-16 relative) is the same robot to the 1e-9
    of the comparison.
    """
    text = NUMBER.sub(lambda m: '%.10g' % float(m.group(0)), xml)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def reference_values():
    """Return {'robot/quantity': array} computed by Pinocchio."""
    from oracle import (oracle_for, pin_aba_derivatives,
                        pin_rnea_derivatives, random_state)
    import pinocchio as pin
    values = {'pinocchio_version': np.array(pin.__version__)}
    rng = np.random.default_rng(SEED)
    for name, xml in robots():
        model, oracle = oracle_for(xml)
        values[name + '/urdf_sha256'] = np.array(digest(xml))
        states = [random_state(model, rng) for _ in range(STATES)]
        columns = {}
        for q, qd, qdd, tau in states:
            f_ext = rng.normal(size=(model.nq, 6))
            row = {
                'q': q, 'qd': qd, 'qdd': qdd, 'tau': tau, 'f_ext': f_ext,
                'rnea': oracle.rnea(q, qd, qdd),
                'rnea_f_ext': oracle.rnea(q, qd, qdd, f_ext),
                'crba': oracle.crba(q),
                'aba': oracle.aba(q, qd, tau),
                'aba_f_ext': oracle.aba(q, qd, tau, f_ext),
                'gravity': oracle.gravity(q),
                'bias': oracle.bias(q, qd),
                'coriolis': oracle.coriolis(q, qd),
            }
            for key, matrix in zip(
                    ('dtau_dq', 'dtau_dqd', 'rnea_M'),
                    pin_rnea_derivatives(oracle, q, qd, qdd)):
                row[key] = matrix
            for key, matrix in zip(
                    ('dqdd_dq', 'dqdd_dqd', 'Minv'),
                    pin_aba_derivatives(oracle, q, qd, tau)):
                row[key] = matrix
            for key, value in row.items():
                columns.setdefault(key, []).append(np.asarray(value, float))
        for key, rows in columns.items():
            values['%s/%s' % (name, key)] = np.stack(rows)
    return values


def main():
    """Compute the reference values and write them to ``OUTPUT``."""
    sys.path.insert(0, os.path.join(REPO_ROOT, 'test'))
    values = reference_values()
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    np.savez_compressed(OUTPUT, **values)
    print('%d arrays, %d bytes in %s' % (
        len(values), os.path.getsize(OUTPUT),
        os.path.relpath(OUTPUT, REPO_ROOT)))
    return 0


if __name__ == '__main__':
    sys.exit(main())

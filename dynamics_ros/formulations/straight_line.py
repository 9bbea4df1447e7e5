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
Straight-line symbolic programs: sympy with named intermediate quantities.

Kane and Levinson (1983) keep their equations small by naming intermediate
scalars once (Z1..Z196) and writing every later quantity in terms of them.
A ``Program`` does the same with sympy: ``define`` names an expression,
``time_derivative`` and ``partial`` differentiate through the named
quantities by the chain rule (each named quantity's derivative is named once,
memoised), so expressions never swell with the chain length.  ``source``
prints the quantities an output needs as Python assignments.
"""

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter


class ExactFloatPrinter(PythonCodePrinter):
    """Python printer that writes floats with all their digits."""

    def _print_Float(self, expr):
        return repr(float(expr))


def number(value, tolerance=1e-13):
    """Return a sympy number: exact 0 and integers snapped, else a Float."""
    value = float(value)
    if abs(value) < tolerance:
        return sp.Integer(0)
    if abs(value - round(value)) < tolerance:
        return sp.Integer(int(round(value)))
    return sp.Float(value)


class Program:
    """
    Named scalar quantities defined by expressions of earlier ones.

    ``rates`` maps base symbols to their time derivatives (expressions);
    base symbols not in it are constant in time.
    """

    def __init__(self, rates, prefix='z'):
        """Start an empty program with the base symbols' time derivatives."""
        self.rates = dict(rates)
        self.prefix = prefix
        self.definitions = {}
        self.order = []
        self._time = {}
        self._partial = {}

    def define(self, expr):
        """Return a symbol naming ``expr`` (atoms and -atoms stay as is)."""
        expr = sp.sympify(expr)
        if expr.is_Atom or (-expr).is_Atom:
            return expr
        symbol = sp.Symbol('%s%d' % (self.prefix, len(self.order)))
        self.definitions[symbol] = expr
        self.order.append(symbol)
        return symbol

    def define_all(self, exprs):
        """Return ``define`` of each expression of a sequence."""
        return [self.define(e) for e in exprs]

    def _symbol_rate(self, symbol):
        if symbol in self.rates:
            return self.rates[symbol]
        if symbol not in self.definitions:
            return sp.Integer(0)
        if symbol not in self._time:
            self._time[symbol] = self.define(
                self.time_derivative(self.definitions[symbol]))
        return self._time[symbol]

    def time_derivative(self, expr):
        """Return d(expr)/dt by the chain rule through named quantities."""
        expr = sp.sympify(expr)
        result = sp.Integer(0)
        for symbol in sorted(expr.free_symbols, key=str):
            rate = self._symbol_rate(symbol)
            if rate != 0:
                result += sp.diff(expr, symbol) * rate
        return result

    def _symbol_partial(self, symbol, variable):
        if symbol == variable:
            return sp.Integer(1)
        if symbol not in self.definitions:
            return sp.Integer(0)
        key = (symbol, variable)
        if key not in self._partial:
            self._partial[key] = self.define(
                self.partial(self.definitions[symbol], variable))
        return self._partial[key]

    def partial(self, expr, variable):
        """Return d(expr)/d(variable) through named quantities."""
        expr = sp.sympify(expr)
        result = sp.Integer(0)
        for symbol in sorted(expr.free_symbols, key=str):
            inner = self._symbol_partial(symbol, variable)
            if inner != 0:
                result += sp.diff(expr, symbol) * inner
        return result

    def needed(self, outputs):
        """Return the named quantities the outputs depend on, in order."""
        stack = [s for e in outputs for s in sp.sympify(e).free_symbols]
        seen = set()
        while stack:
            symbol = stack.pop()
            if symbol in seen or symbol not in self.definitions:
                continue
            seen.add(symbol)
            stack.extend(self.definitions[symbol].free_symbols)
        return [s for s in self.order if s in seen]

    def assignments(self, outputs, indent='    '):
        """Return Python lines assigning what ``outputs`` need."""
        printer = ExactFloatPrinter()
        return ['%s%s = %s' % (indent, s, printer.doprint(
            self.definitions[s])) for s in self.needed(outputs)]


def wrap_line(line, width=99):
    """
    Return ``line`` split into lines of at most ``width`` characters.

    An assignment ``x = expr`` or ``return expr`` becomes ``x = (`` and the
    expression's tokens on hanging-indented lines (breaks only at spaces,
    inside the added parentheses, so the Python stays valid).
    """
    if len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip())]
    text = line.strip()
    if text.startswith('return '):
        head, body = 'return (', text[len('return '):]
    else:
        name, body = text.split(' = ', 1)
        head = name + ' = ('
    lines, current = [indent + head], indent + '    '
    for word in body.split(' '):
        candidate = word if current.strip() == '' else current + ' ' + word
        if current.strip() and len(candidate) > width - 1:
            lines.append(current)
            current = indent + '    ' + word
        else:
            current = candidate if current.strip() else current + word
    lines.append(current + ')')
    return lines


def print_expr(expr):
    """Return Python source of a sympy expression (exact floats)."""
    return ExactFloatPrinter().doprint(sp.sympify(expr))

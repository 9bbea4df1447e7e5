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
Load YAML text within bounds on nesting depth and node count.

``yaml.safe_load`` composes a node tree recursively: 200,000 nested ``[``
(400 KB) end in RecursionError, and a valid 4 MiB file takes a minute in
the pure-Python loader.  Here the parser's event stream (libyaml's when
PyYAML has it) is turned into Python objects by one loop with an explicit
stack, so depth costs no recursion, and the loop stops at the first event
past a bound: the work done is at most ``nodes`` events whatever the file.
Scalars are resolved and built by PyYAML's own safe resolver and
constructor, so the result equals ``yaml.safe_load``'s for any text within
bounds.  An alias counts as many nodes as the node it repeats (a
"billion laughs" file is refused, not expanded).

A refusal is ``YamlLimit`` (a ValueError): a predicate ('is nested deeper
than 32 levels (the bound) at line 1, column 33') naming the line, the
column and the bound, never the text, put after the file's name.
"""

from collections import namedtuple

YamlBounds = namedtuple('YamlBounds', 'size depth nodes')

MIB = 1024 * 1024
# A config (friction, flexible links, actuators): a few KiB and five levels
# in every shipped or written file (config/*.yaml, identify's friction
# output); 10,000 nodes are ~2,000 joints' friction.  At these bounds a
# load takes about 0.1 s on an idle core and stays under a second on a
# loaded machine (benchmarks/bench_hostile_inputs.py measures it; tests
# time nothing), so a parameter set is answered within a second.
CONFIG_BOUNDS = YamlBounds(size=1 * MIB, depth=32, nodes=10000)
# An excitation file excite writes (--resend): 3 x points x joints numbers,
# e.g. 3 x 3,000 x 7 = 63,000; a CLI input, not a node parameter.
PLAN_BOUNDS = YamlBounds(size=64 * MIB, depth=32, nodes=2000000)

COLLECTION_TAGS = ('tag:yaml.org,2002:seq', 'tag:yaml.org,2002:map')


class YamlLimit(ValueError):
    """YAML text over a bound or malformed: the reason, never the text."""


def _where(mark):
    """Return 'line L, column C' of a PyYAML mark (1-based)."""
    if mark is None:
        return 'an unknown position'
    return 'line %d, column %d' % (mark.line + 1, mark.column + 1)


def yaml_position(error):
    """
    Say where a YAML error is, without quoting the text: 'line 3, column 7'.

    PyYAML's own message quotes the offending text (and the file may be
    anything); only its position is kept.
    """
    mark = getattr(error, 'problem_mark', None) or getattr(
        error, 'context_mark', None)
    if mark is None:
        return 'malformed YAML'
    return _where(mark)


class _Builder:
    """Python objects from parser events, one loop, bounded."""

    def __init__(self, loader, bounds):
        import yaml
        self.yaml = yaml
        self.loader = loader
        self.bounds = bounds
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack = []      # [container, key or _NO_KEY, anchor, count0]
        self.anchors = {}    # name -> (value, node count)
        self.nodes = 0
        self.documents = 0
        self.root = None

    def count(self, added, mark):
        self.nodes += added
        if self.nodes > self.bounds.nodes:
            raise YamlLimit('has more than %d YAML nodes (the bound) by %s' % (
                self.bounds.nodes, _where(mark)))

    def add(self, value, mark):
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        container = top[0]
        if isinstance(container, list):
            container.append(value)
        elif top[1] is _NO_KEY:
            if isinstance(value, (list, dict)):
                raise YamlLimit('has a mapping key that is a list or a mapping at %s'
                                % _where(mark))
            top[1] = value
        else:
            container[top[1]] = value
            top[1] = _NO_KEY

    def scalar(self, event):
        self.count(1, event.start_mark)
        tag = event.tag
        if tag is None or tag == '!':
            tag = self.loader.resolve(self.yaml.ScalarNode, event.value,
                                      event.implicit)
        node = self.yaml.ScalarNode(tag, event.value, event.start_mark,
                                    event.end_mark, event.style)
        value = self.constructor.construct_object(node, deep=True)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        self.add(value, event.start_mark)

    def start(self, event, container):
        self.count(1, event.start_mark)
        if event.tag not in (None, '!') and event.tag not in COLLECTION_TAGS:
            raise YamlLimit('has a collection tagged other than !!seq or !!map '
                            'at %s' % _where(event.start_mark))
        if len(self.stack) >= self.bounds.depth:
            raise YamlLimit('is nested deeper than %d levels (the bound) at %s'
                            % (self.bounds.depth, _where(event.start_mark)))
        self.stack.append([container, _NO_KEY, event.anchor, self.nodes])

    def end(self, event):
        container, _, anchor, first = self.stack.pop()
        if anchor is not None:
            self.anchors[anchor] = (container, self.nodes - first + 1)
        self.add(container, event.start_mark)

    def alias(self, event):
        if event.anchor not in self.anchors:
            raise YamlLimit('has an alias to an unknown anchor at %s'
                            % _where(event.start_mark))
        value, nodes = self.anchors[event.anchor]
        self.count(nodes, event.start_mark)
        self.add(value, event.start_mark)

    def run(self):
        events = self.yaml.events
        handlers = {events.ScalarEvent: self.scalar,
                    events.SequenceStartEvent: lambda e: self.start(e, []),
                    events.MappingStartEvent: lambda e: self.start(e, {}),
                    events.SequenceEndEvent: self.end,
                    events.MappingEndEvent: self.end,
                    events.AliasEvent: self.alias}
        while self.loader.check_event():
            event = self.loader.get_event()
            handler = handlers.get(type(event))
            if handler is not None:
                handler(event)
            elif isinstance(event, events.DocumentStartEvent):
                self.documents += 1
                if self.documents > 1:
                    raise YamlLimit('has more than one YAML document (a second '
                                    'at %s)' % _where(event.start_mark))
        return self.root


_NO_KEY = object()


def load_yaml(text, bounds=CONFIG_BOUNDS):
    """
    Return ``yaml.safe_load(text)`` if ``text`` is within ``bounds``.

    Raises YamlLimit (a ValueError) for a text over ``bounds.size``
    characters, nested deeper than ``bounds.depth``, with more than
    ``bounds.nodes`` nodes (aliases counted expanded), with more than one
    document or malformed (the reason and its line, never the text).
    """
    import yaml   # only the callers that read YAML pay for importing it

    if len(text) > bounds.size:
        raise YamlLimit('is over the %d-character bound' % bounds.size)
    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)(text)
    try:
        return _Builder(loader, bounds).run()
    except yaml.YAMLError as problem:
        if 'nesting depth' in str(getattr(problem, 'problem', '')):
            # libyaml's own cap (1000 levels, since 0.2.5): its scanner
            # reads ahead through nested flow collections before our loop
            # sees the 33rd level.
            raise YamlLimit('is nested deeper than %d levels (the bound) '
                            'by %s' % (bounds.depth, yaml_position(problem)))
        raise YamlLimit('is not valid YAML (%s)' % yaml_position(problem))
    finally:
        loader.dispose()

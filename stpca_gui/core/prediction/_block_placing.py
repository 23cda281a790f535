"""T̂ (eq. interp) from d = 20 on: blocks of points at once, every pass over the partners a
matrix product.

Each point's iteration is the matrix-free damped Newton of :mod:`._matrix_free_kernel` (CG
steps on the tangent space, preconditioned by the mean-weight model, started at the linear
placement of the partners' cosines). Placed one point at a time, each of its ~40 passes over
the m partners (a stress pass or a product with the Newton model) was a compiled scalar loop
of O(m·d), about 3 GFlop/s, and that per-point kernel was removed (issue 30: one iteration,
one implementation). Here a block of points runs the iteration side by side. Every point, at
any moment, waits for one of three products: the stress pass at its trial point (cosines
y·ŷ_i, then the gradient E s), a product with its Newton model (B (w ⊙ Bᵀ v), B the
partners' columns) or the preconditioner (V diag(…) Vᵀ r, V the eigenvectors of E Eᵀ). A
round gathers all points waiting for a stress pass into one pair of matrix products (block ×
(d + 1) against (d + 1) × m and back), all points waiting for a model product into another,
those waiting for the preconditioner into a third, and then advances each point's iteration
(compiled, per point: acceptance, damping, conjugate gradients) until it waits again or has
finished; finished points leave the rounds. Only the elementwise parts (the angles and
weights from the cosines, :func:`._prediction_kernel.partner_terms`; the weights of the
products) are compiled loops.

The iteration (the dense kernel's acceptance, damping and stopping rules, with CG steps)
is written as a resumable state machine: :func:`_advance` continues from the label stored
for the point. Its answers differed from the per-point kernel's by the rounding of the sums
only (BLAS adds in another order): at most 3e-14 on the peptide-like data at d = 20–426
(m = 1,000), 1.3e-11 where the exact Hessian takes over on a constructed case; the tests
compare with that kernel's recorded answers (tests/data/placing). A single query runs as a
block of one (3.0 ms against the per-point kernel's 2.5 ms on T⁶⁶, m = 1,000).

Blocks of :data:`PLACE_BLOCK` points run on the kernel threads, with BLAS on one thread
(:func:`~stpca_gui.core._base.threads.single_threaded_blas`). The blocks are cut by row
index, whatever the number of threads, so that the answers do not depend on the thread
schedule. Memory O(block · m).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel, kernel_array
from .._base.parallel import map_parallel
from .._base.threads import single_threaded_blas
from ._matrix_free_kernel import (
    _CG_FAR_TOL,
    _CG_PLACE_NEAR_TOL,
    _LAST_STEP_UNCHECKED,
    _PRECONDITIONER_FLOOR,
    _PSEUDOINVERSE_RCOND,
    _cap_step,
    _cg_move,
    _cg_next_direction,
    _cg_progress,
    _dot,
    _retract,
    partner_spectrum,
)
from ._prediction_kernel import (
    _EXACT_NEAR,
    _LAMBDA_MAX,
    _LAMBDA_START,
    _NEWTON_LAMBDA,
    _VECTOR_MATH,
    _accepts,
    _after_accepted,
    _at_rest,
    _new_trial,
    _remember_rejected,
    _torus_targets,
    _unit_vector_into,
    partner_terms,
)

#: Points placed side by side in one block (memory: about 7 × block × m floats). CPU ms per
#: point on T⁶⁶, m = 1,000, one thread, by block size: 64: 0.56, 128: 0.53–0.55, 256:
#: 0.52, 512: 0.53 (load 4–5).
PLACE_BLOCK = 256

# What a point waits for.
_WAIT_STRESS = 0
_WAIT_PRODUCT = 1
_WAIT_PRECONDITION = 2
_DONE = 3

# Where _advance resumes a point (labels of its state machine).
_L_STRESS = 0
_L_DAMPING = 1
_L_CG_START = 2
_L_CG_WARM = 3
_L_CG_INIT = 4
_L_CG_ITER = 5
_L_CG_END = 6
_L_AFTER_CG = 7
_L_PROPOSED = 8
_L_STEP = 9
_L_END = 10
_L_CG_FIRST_DIRECTION = 11
_L_CG_NEXT_DIRECTION = 12

# Rows of a point's vectors (each of length p = d + 1).
_Y = 0
_GRAD = 1
_TRIAL = 2
_TRIAL_GRAD = 3
_G = 4
_STEP = 5
_REJECTED_STEP = 6
_RESIDUAL = 7
_CONDITIONED = 8
_DIRECTION = 9
_PRODUCT = 10
_REQUEST = 11  # the vector whose model product or preconditioning the point waits for
_RAW = 12  # B diag(w) Bᵀ request or V diag(1 / (w̄ λ + diagonal)) Vᵀ request, unprojected
_N_VECTORS = 13

# A point's floating-point state.
_VALUE = 0
_CURVATURE = 1
_CAP_SHIFT = 2
_DAMPING = 3
_MEAN_WEIGHT = 4
_ENERGY = 5
_FIRST_GRADIENT = 6
_STEP_SQUARED = 7
_LAM = 8
_TOLERANCE = 9
_MODEL_CURVATURE = 10
_CG_TOL = 11
_CG_GOAL = 12
_CG_RZ = 13
_CG_BEST = 14
_TRIAL_VALUE = 15
_TRIAL_CURVATURE = 16
_TRIAL_SHIFT = 17
_TRIAL_GN = 18
_RESULT = 19
_N_SCALARS = 20

# A point's integer state.
_STATE = 0
_LABEL = 1
_FIRST = 2
_REJECTED = 3
_EXACT = 4
_ACCEPTED = 5
_LAST = 6
_CG_WARM = 7
_CG_ITERATION = 8
_CG_STALLED = 9
_CG_FOR_LAST = 10  # the running CG solves the unchecked last step (else a damped step)
_SOLVED = 11
_N_FLAGS = 12


@kernel()
def _project_raw(raw: NDArray, y: NDArray, out: NDArray) -> None:
    """``out`` = ``raw`` projected onto the tangent space at the unit vector ``y``."""
    along = _dot(raw, y)
    for k in range(raw.shape[0]):
        out[k] = raw[k] - along * y[k]


@kernel()
def _advance_one(
    vectors: NDArray, scalars: NDArray, flags: NDArray, weights: NDArray,
    shifts: NDArray, trial_weights: NDArray, trial_shifts: NDArray,
    max_iter: int, tol: float,
) -> None:
    # One point's iteration (damped Newton on the tangent space with the retraction
    # y <- (y + s) / |y + s| and CG steps as in _matrix_free_kernel._newton_step), from
    # the label in flags[_LABEL] until the point waits for a pass over the partners
    # (flags[_STATE]) or has finished (its answer in vectors[_Y], its stress in
    # scalars[_RESULT]).
    p = vectors.shape[1]
    q = p - 1
    m = weights.shape[0]
    y = vectors[_Y]
    grad = vectors[_GRAD]
    trial = vectors[_TRIAL]
    trial_grad = vectors[_TRIAL_GRAD]
    g = vectors[_G]
    step = vectors[_STEP]
    rejected_step = vectors[_REJECTED_STEP]
    residual = vectors[_RESIDUAL]
    conditioned = vectors[_CONDITIONED]
    direction = vectors[_DIRECTION]
    product = vectors[_PRODUCT]
    request = vectors[_REQUEST]
    raw = vectors[_RAW]
    value = scalars[_VALUE]
    curvature = scalars[_CURVATURE]
    cap_shift = scalars[_CAP_SHIFT]
    damping = scalars[_DAMPING]
    mean_weight = scalars[_MEAN_WEIGHT]
    energy = scalars[_ENERGY]
    first_gradient_squared = scalars[_FIRST_GRADIENT]
    step_squared = scalars[_STEP_SQUARED]
    lam = scalars[_LAM]
    tolerance = scalars[_TOLERANCE]
    model_curvature = scalars[_MODEL_CURVATURE]
    cg_tol = scalars[_CG_TOL]
    goal = scalars[_CG_GOAL]
    rz = scalars[_CG_RZ]
    best = scalars[_CG_BEST]
    first = flags[_FIRST] != 0
    rejected = flags[_REJECTED] != 0
    exact = flags[_EXACT] != 0
    accepted = flags[_ACCEPTED]
    last = flags[_LAST] != 0
    warm = flags[_CG_WARM] != 0
    iteration = flags[_CG_ITERATION]
    stalled = flags[_CG_STALLED]
    for_last = flags[_CG_FOR_LAST] != 0
    solved = flags[_SOLVED] != 0
    state = _WAIT_STRESS
    label = flags[_LABEL]
    while True:
        if label == _L_STRESS:
            trial_value = scalars[_TRIAL_VALUE]
            if _accepts(first, trial_value, value, step_squared):
                decrease = value - trial_value
                for k in range(p):
                    y[k] = trial[k]
                    grad[k] = trial_grad[k]
                for i in range(m):
                    weights[i] = trial_weights[i]
                    shifts[i] = trial_shifts[i]
                value = trial_value
                curvature = scalars[_TRIAL_CURVATURE]
                cap_shift = scalars[_TRIAL_SHIFT]
                rejected = False
                accepted, lam, stop = _after_accepted(first, accepted, lam, decrease, value,
                                                      tol, step_squared, max_iter)
                first = False
                if stop:
                    label = _L_END
                    continue
                along = _dot(grad, y)
                for k in range(p):
                    g[k] = grad[k] - along * y[k]
                if accepted == 0:
                    first_gradient_squared = max(_dot(g, g), 1e-300)
                exact = cap_shift > 0.0 and step_squared <= _EXACT_NEAR**2
                damping = scalars[_TRIAL_GN] / q + 1e-300
                total_weight = 0.0
                for i in range(m):
                    total_weight += weights[i]
                mean_weight = total_weight / m
            else:
                if _at_rest(step_squared, trial_value - value, tol * max(value, 1e-300)):
                    label = _L_END
                    continue
                rejected = True
                step_squared = _remember_rejected(step, rejected_step)
                lam *= 10.0
            tolerance = min(_CG_FAR_TOL, max(math.sqrt(_dot(g, g) / first_gradient_squared),
                                             _CG_PLACE_NEAR_TOL))
            label = _L_DAMPING
        elif label == _L_DAMPING:
            if not lam < _LAMBDA_MAX:
                label = _L_END  # no step proposed: the accepted point is the answer
                continue
            model_curvature = curvature - cap_shift if exact else curvature
            warm = False
            for_last = False
            cg_tol = tolerance
            label = _L_CG_START
        elif label == _L_CG_START:
            # _newton_step: (H + λ·damping) s = −g by preconditioned CG on the tangent
            # space at y, from 0 or (warm) from the current step.
            if warm:
                for k in range(p):
                    request[k] = step[k]
                state = _WAIT_PRODUCT
                label = _L_CG_WARM
                break
            for k in range(p):
                step[k] = 0.0
                product[k] = 0.0
            label = _L_CG_INIT
        elif label == _L_CG_WARM or label == _L_CG_ITER:
            # The model product of the request: B diag(w) Bᵀ v + diagonal v, projected.
            diagonal = model_curvature + lam * damping
            along = 0.0
            for k in range(p):
                along += raw[k] * y[k]
            for k in range(p):
                product[k] = raw[k] + diagonal * request[k] - along * y[k]
            if label == _L_CG_WARM:
                label = _L_CG_INIT
                continue
            curvature_along = _dot(direction, product)
            if not curvature_along > 0.0:
                if iteration == 0 and not warm:
                    solved = False
                    energy = 0.0
                    label = _L_AFTER_CG
                else:
                    label = _L_CG_END
                continue
            squared = _cg_move(rz, curvature_along, direction, product, step, residual)
            best, stalled, stop = _cg_progress(squared, best, stalled)
            if squared <= goal or stop:
                label = _L_CG_END
                continue
            for k in range(p):
                request[k] = residual[k]
            state = _WAIT_PRECONDITION
            label = _L_CG_NEXT_DIRECTION
            break
        elif label == _L_CG_NEXT_DIRECTION:
            _project_raw(raw, y, conditioned)
            rz = _cg_next_direction(rz, residual, conditioned, direction)
            iteration += 1
            if iteration >= p + 10:
                label = _L_CG_END
                continue
            for k in range(p):
                request[k] = direction[k]
            state = _WAIT_PRODUCT
            label = _L_CG_ITER
            break
        elif label == _L_CG_INIT:
            for k in range(p):
                residual[k] = -g[k] - product[k]
                request[k] = residual[k]
            goal = cg_tol * cg_tol * _dot(g, g)
            state = _WAIT_PRECONDITION
            label = _L_CG_FIRST_DIRECTION
            break
        elif label == _L_CG_FIRST_DIRECTION:
            _project_raw(raw, y, conditioned)
            for k in range(p):
                direction[k] = conditioned[k]
                request[k] = direction[k]
            rz = _dot(residual, conditioned)
            best = _dot(residual, residual)
            stalled = 0
            iteration = 0
            state = _WAIT_PRODUCT
            label = _L_CG_ITER
            break
        elif label == _L_CG_END:
            # sᵀ (H + damping I) s = −sᵀ g − sᵀ residual, as residual = −g − (H + damping I) s.
            solved = True
            energy = -_dot(step, g) - _dot(step, residual) - lam * damping * _dot(step, step)
            label = _L_AFTER_CG
        elif label == _L_AFTER_CG:
            if for_last:
                step_squared = _dot(step, step)
                last = (solved and _dot(step, g) < 0.0
                        and step_squared <= _LAST_STEP_UNCHECKED**2)
                label = _L_STEP
                continue
            if not solved and exact:
                exact = False  # the exact Hessian is indefinite here: the capped model
                label = _L_DAMPING
                continue
            _cap_step(step)
            if (solved and _dot(step, g) < 0.0
                    and _new_trial(step, rejected_step, rejected, step_squared)):
                label = _L_PROPOSED
                continue
            lam *= 10.0
            label = _L_DAMPING
        elif label == _L_PROPOSED:
            step_squared = _dot(step, step)
            last = (not rejected and lam <= _NEWTON_LAMBDA
                    and step_squared <= _LAST_STEP_UNCHECKED**2)
            if last and tolerance > _CG_PLACE_NEAR_TOL:
                # The unchecked last step must be Newton's far inside T̂'s tolerance.
                warm = True
                for_last = True
                cg_tol = _CG_PLACE_NEAR_TOL
                label = _L_CG_START
                continue
            label = _L_STEP
        elif label == _L_STEP:
            _retract(y, step, trial)
            if last:
                # ½ Σ res² changes by g·s + ½ sᵀ H s in the model; the mean stress by 2/m.
                change = _dot(g, step) + 0.5 * energy
                for k in range(p):
                    y[k] = trial[k]
                scalars[_RESULT] = max(value + 2.0 * change / m, 0.0)
                state = _DONE
                break
            state = _WAIT_STRESS
            label = _L_STRESS
            break
        else:  # _L_END
            scalars[_RESULT] = value
            state = _DONE
            break
    scalars[_VALUE] = value
    scalars[_CURVATURE] = curvature
    scalars[_CAP_SHIFT] = cap_shift
    scalars[_DAMPING] = damping
    scalars[_MEAN_WEIGHT] = mean_weight
    scalars[_ENERGY] = energy
    scalars[_FIRST_GRADIENT] = first_gradient_squared
    scalars[_STEP_SQUARED] = step_squared
    scalars[_LAM] = lam
    scalars[_TOLERANCE] = tolerance
    scalars[_MODEL_CURVATURE] = model_curvature
    scalars[_CG_TOL] = cg_tol
    scalars[_CG_GOAL] = goal
    scalars[_CG_RZ] = rz
    scalars[_CG_BEST] = best
    flags[_STATE] = state
    flags[_LABEL] = label
    flags[_FIRST] = first
    flags[_REJECTED] = rejected
    flags[_EXACT] = exact
    flags[_ACCEPTED] = accepted
    flags[_LAST] = last
    flags[_CG_WARM] = warm
    flags[_CG_ITERATION] = iteration
    flags[_CG_STALLED] = stalled
    flags[_CG_FOR_LAST] = for_last
    flags[_SOLVED] = solved


@kernel()
def _advance(
    rows: NDArray, vectors: NDArray, scalars: NDArray, flags: NDArray, weights: NDArray,
    shifts: NDArray, trial_weights: NDArray, trial_shifts: NDArray, max_iter: int,
    tol: float,
) -> None:
    """Advance every point in ``rows`` (their passes done) to its next wait."""
    for a in range(rows.shape[0]):
        i = rows[a]
        _advance_one(vectors[i], scalars[i], flags[i], weights[i], shifts[i],
                     trial_weights[i], trial_shifts[i], max_iter, tol)


@kernel(fastmath=_VECTOR_MATH)
def _stress_terms(
    rows: NDArray, cosines: NDArray, targets: NDArray, radius: float, scale: NDArray,
    trial_weights: NDArray, trial_shifts: NDArray, scalars: NDArray,
) -> None:
    """The elementwise part of the stress passes of ``rows``: from their cosines to the
    partners (one row each), the gradient scales into ``scale`` (same shape), the weights
    and cap shifts into the points' trial rows, the sums into their scalars."""
    m = cosines.shape[1]
    for a in range(rows.shape[0]):
        i = rows[a]
        total, curvature, cap_shift, _, gauss_newton = partner_terms(
            cosines[a], targets[i], radius, scale[a], trial_weights[i], trial_shifts[i])
        scalars[i, _TRIAL_VALUE] = total / m
        scalars[i, _TRIAL_CURVATURE] = curvature
        scalars[i, _TRIAL_SHIFT] = cap_shift
        scalars[i, _TRIAL_GN] = gauss_newton


@kernel(fastmath=_VECTOR_MATH)
def _weigh(rows: NDArray, inner: NDArray, weights: NDArray, shifts: NDArray,
           flags: NDArray) -> None:
    """Multiply the partner products Bᵀ v of ``rows`` by the points' model weights (with
    their cap shifts where the point uses the exact Hessian)."""
    m = inner.shape[1]
    for a in range(rows.shape[0]):
        i = rows[a]
        row = inner[a]
        w = weights[i]
        if flags[i, _EXACT] != 0:
            s = shifts[i]
            for j in range(m):
                row[j] *= w[j] + s[j]
        else:
            for j in range(m):
                row[j] *= w[j]


@kernel()
def _scale_coefficients(rows: NDArray, coefficients: NDArray, eigenvalues: NDArray,
                        scalars: NDArray) -> None:
    """The middle of T̂'s preconditioner, P_y V diag(1 / (w̄ λ_j + diagonal)) Vᵀ, for
    ``rows``: their residuals' coefficients in the eigenbasis of E Eᵀ divided by
    w̄ λ_j + diagonal (kept at least :data:`_PRECONDITIONER_FLOOR` of w̄ λ_j + |diagonal|;
    0 where that is not positive), w̄ and the diagonal each point's own."""
    p = coefficients.shape[1]
    for a in range(rows.shape[0]):
        i = rows[a]
        mean_weight = scalars[i, _MEAN_WEIGHT]
        diagonal = scalars[i, _MODEL_CURVATURE] + scalars[i, _LAM] * scalars[i, _DAMPING]
        floor_shift = abs(diagonal)
        row = coefficients[a]
        for j in range(p):
            scaled = mean_weight * eigenvalues[j]
            denominator = max(scaled + diagonal,
                              _PRECONDITIONER_FLOOR * (scaled + floor_shift))
            row[j] = row[j] / denominator if denominator > 0.0 else 0.0


@kernel()
def _torus_targets_rows(queries: NDArray, angles_t: NDArray, targets: NDArray,
                        nearest: NDArray) -> None:
    """Torus distances of every query to the partners, and the partner nearest to each."""
    for row in range(queries.shape[0]):
        nearest[row] = _torus_targets(queries[row], angles_t, targets[row])


@kernel()
def _first_trials(starts: NDArray, nearest: NDArray, embedding: NDArray,
                  vectors: NDArray) -> None:
    """Each point's first trial: its start normalised, or the nearest partner's ŷ where
    the linear start is 0."""
    for row in range(starts.shape[0]):
        if not _dot(starts[row], starts[row]) > 0.0:
            starts[row] = embedding[nearest[row]]
        _unit_vector_into(starts[row], vectors[row, _TRIAL])


def _linear_starts(targets: NDArray, embedding: NDArray, radius: float,
                   eigenvalues: NDArray, eigenvectors: NDArray) -> NDArray:
    """The start of every row of ``targets``: the unit vector (up to its length) whose
    cosines to the partners best fit cos(t_i / r) in least squares, (E Eᵀ)⁺ E cos(t / r),
    the spherical analogue of landmark MDS's linear placement (de Silva & Tenenbaum). On
    T⁶⁶ (m = 1000) it lies about 3° from the minimiser, the nearest partner's ŷ about
    30°."""
    projected = np.cos(np.minimum(targets / radius, math.pi)) @ embedding
    coefficients = projected @ eigenvectors.T
    kept = eigenvalues > _PSEUDOINVERSE_RCOND * eigenvalues[-1]
    coefficients[:, kept] /= eigenvalues[kept]
    coefficients[:, ~kept] = 0.0
    return coefficients @ eigenvectors


def _place_block(
    queries: NDArray, angles_t: NDArray, embedding: NDArray, radius: float, max_iter: int,
    tol: float, spectrum: tuple[NDArray, NDArray], out: NDArray, stress: NDArray,
) -> None:
    """T̂ of the wrapped torus points ``queries`` (one block) into ``out``/``stress``."""
    b = queries.shape[0]
    m, p = embedding.shape
    eigenvalues, eigenvectors = spectrum
    embedding_t = embedding.T
    targets = np.empty((b, m))
    nearest = np.empty(b, dtype=np.int64)
    _torus_targets_rows(queries, angles_t, targets, nearest)
    starts = kernel_array(_linear_starts(targets, embedding, radius, eigenvalues,
                                         eigenvectors))
    vectors = np.zeros((b, _N_VECTORS, p))
    _first_trials(starts, nearest, embedding, vectors)
    scalars = np.zeros((b, _N_SCALARS))
    scalars[:, _VALUE] = math.inf
    scalars[:, _FIRST_GRADIENT] = 1.0
    scalars[:, _STEP_SQUARED] = math.inf
    scalars[:, _LAM] = _LAMBDA_START
    flags = np.zeros((b, _N_FLAGS), dtype=np.int64)
    flags[:, _STATE] = _WAIT_STRESS
    flags[:, _LABEL] = _L_STRESS
    flags[:, _FIRST] = 1
    weights, shifts, trial_weights, trial_shifts = np.empty((4, b, m))
    active = np.arange(b, dtype=np.int64)
    while active.size:
        state = flags[active, _STATE]
        stressed = active[state == _WAIT_STRESS]
        multiplied = active[state == _WAIT_PRODUCT]
        conditioned = active[state == _WAIT_PRECONDITION]
        if stressed.size:
            cosines = vectors[stressed, _TRIAL] @ embedding_t
            scale = np.empty_like(cosines)
            _stress_terms(stressed, cosines, targets, radius, scale, trial_weights,
                          trial_shifts, scalars)
            vectors[stressed, _TRIAL_GRAD] = scale @ embedding
        if multiplied.size:
            inner = vectors[multiplied, _REQUEST] @ embedding_t
            _weigh(multiplied, inner, weights, shifts, flags)
            vectors[multiplied, _RAW] = inner @ embedding
        if conditioned.size:
            coefficients = vectors[conditioned, _REQUEST] @ eigenvectors.T
            _scale_coefficients(conditioned, coefficients, eigenvalues, scalars)
            vectors[conditioned, _RAW] = coefficients @ eigenvectors
        _advance(active, vectors, scalars, flags, weights, shifts, trial_weights,
                 trial_shifts, max_iter, tol)
        active = active[flags[active, _STATE] != _DONE]
    out[:] = vectors[:, _Y]
    stress[:] = scalars[:, _RESULT]


@single_threaded_blas
def interpolate_sphere_blocks(
    queries: NDArray, angles: NDArray, embedding: NDArray, radius: float, max_iter: int,
    tol: float, spectrum: tuple[NDArray, NDArray] | None = None,
) -> tuple[NDArray, NDArray]:
    """T̂ (eq. interp) for every wrapped torus point in ``queries`` (k, d), with the passes
    over the partners as matrix products over blocks of :data:`PLACE_BLOCK` points (O(m·d)
    work per pass and point, as ``_prediction_kernel.interpolate_sphere`` without forming
    the d × d model); ``spectrum`` is
    :func:`~._matrix_free_kernel.partner_spectrum` of ``embedding`` (computed when None).
    """
    queries = kernel_array(queries)
    embedding = kernel_array(embedding)
    angles_t = kernel_array(angles.T)
    spectrum = spectrum if spectrum is not None else partner_spectrum(embedding)
    n_queries = queries.shape[0]
    out = np.empty((n_queries, embedding.shape[1]))
    stress = np.empty(n_queries)

    def run(lo: int) -> None:
        hi = min(n_queries, lo + PLACE_BLOCK)
        _place_block(queries[lo:hi], angles_t, embedding, radius, max_iter, tol, spectrum,
                     out[lo:hi], stress[lo:hi])

    map_parallel(run, range(0, n_queries, PLACE_BLOCK))
    return out, stress
